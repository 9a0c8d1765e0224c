package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.EngineRequests;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side on an OpenSearch cluster: one index per (kind, tenant, UTC day) ({@link IndexNames}), created from the
 * store's index template ({@link IndexTemplate#body}) with the shard in its {@code _meta}; records and dead letters
 * sent as {@code _bulk} with the {@code record_id} as document id, so a replay overwrites.
 *
 * <p>An item OpenSearch refuses for the document itself (a mapping it cannot take, the index's field limit) is returned
 * as a {@link Rejection} with OpenSearch's reason, and the others are written. Items refused for load (429, 503) are
 * sent again, only those, after a growing pause ({@link #RETRY_PAUSES}); still refused after that, the write throws,
 * and the caller treats it as the engine failing (the indexer pauses the partition and reads again from its last
 * committed offsets). A bulk is acknowledged only once its translog is on disk (the template's durability), so
 * {@link #commit} has only to store the Kafka offsets beside the indices written since the last commit, in
 * {@code <prefix>-offsets} (one document per index, nothing of it indexed). {@link #refresh} refreshes the indices
 * written since the last refresh. {@link #metadata} is empty: the query service prunes nothing on this engine yet.
 */
public final class OpenSearchStore implements ShardStore {
    static final List<Duration> RETRY_PAUSES = List.of(
            Duration.ofMillis(100),
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4));
    /** Indices remembered as existing; past this many the memory is cleared (they are then checked again). */
    private static final int KNOWN_INDICES = 100_000;

    private static final Logger log = LoggerFactory.getLogger(OpenSearchStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpenSearchSettings settings;
    private final OpenSearchClient client;
    private final IndexNames names;
    private final String offsetsIndex;
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    private final Set<String> unrefreshed = ConcurrentHashMap.newKeySet();
    private final Set<String> uncommitted = ConcurrentHashMap.newKeySet(); // written by the writing thread only
    private final BulkSender sender;

    private OpenSearchStore(OpenSearchSettings settings, OpenSearchClient client) {
        this.settings = settings;
        this.client = client;
        this.sender = new BulkSender(
                (body, offset, length) ->
                        client.send("POST", BulkAnswers.PATH, body, offset, length, "application/x-ndjson"),
                settings.bulkConcurrency());
        this.names = new IndexNames(settings.indexPrefix());
        this.offsetsIndex = settings.indexPrefix() + "-offsets";
    }

    /**
     * Reaches the cluster and puts the index template and the offsets index in place (both idempotent).
     *
     * @throws IOException no host answers, or the cluster refuses the template (its answer is in the message)
     */
    public static OpenSearchStore open(OpenSearchSettings settings) throws IOException {
        OpenSearchStore store = new OpenSearchStore(settings, new OpenSearchClient(settings));
        store.putTemplate();
        return store;
    }

    private void putTemplate() throws IOException {
        expect(
                client.sendJson(
                        "PUT",
                        "/_index_template/" + settings.indexPrefix(),
                        JSON.writeValueAsBytes(IndexTemplate.body(settings))),
                "putting the index template " + settings.indexPrefix());
        ClusterDocuments.create(client, settings, offsetsIndex);
    }

    /** What this store sent to the cluster, by endpoint (for the indexer's metrics). */
    public EngineRequests requests() {
        return client.requests();
    }

    /** The index a shard lives in (for messages and the status API). */
    @Override
    public String location(ShardId shard) {
        return names.of(shard);
    }

    /** One shard's batch: {@link #writeAll} of it alone (the same bulks, refusals and failures). */
    @Override
    public Written write(ShardId shard, List<IndexRecord> batch) throws IOException {
        return writeAll(Map.of(shard, batch)).get(shard);
    }

    /** One document of {@link #writeAll}: its index, and where it sits in its shard's batch. */
    record Item(ShardId shard, String index, int inShard, IndexRecord record) {}

    /** A poll's batches with every document's bulk lines encoded ({@link #prepare}), by this store. */
    private record PreparedBulk(
            OpenSearchStore store, Map<ShardId, List<IndexRecord>> batches, List<Item> items, BulkItems encoded)
            implements Prepared {}

    /**
     * Encodes every document's bulk lines, cut into bodies of {@code bulk_bytes}, every shard's records in the same
     * bodies; the indexer calls it on its decode thread, so its loop only sends. Nothing reaches the cluster: an index
     * name is a function of the shard, the index is created by {@link #writeAll(Prepared)}.
     */
    @Override
    public Prepared prepare(Map<ShardId, List<IndexRecord>> batches) {
        List<Item> items = interleaved(batches, names);
        try {
            BulkItems encoded = BulkItems.encode(
                    items,
                    (g, item) -> OpenSearchDocuments.record(g, item.index(), item.record()),
                    settings.bulkBytes(),
                    item -> sizeHint(item.record()));
            return new PreparedBulk(this, batches, items, encoded);
        } catch (IOException | RuntimeException e) {
            // into memory: not expected; the write encodes again and fails as a write (the partitions pause and are
            // read again), never on the decode thread, where it would stop the loop
            log.warn(
                    "encoding {} shards' documents ahead failed, they are encoded when written: {}", batches.size(), e);
            return new Unprepared(batches);
        }
    }

    /**
     * The shards' records taken in turn, one of each shard at a time (each shard's in its own order), so every body
     * holds every index of the poll in proportion: OpenSearch writes a body's indices in parallel, one write thread per
     * index, and a body of one index kept one thread of the node busy (a poll's shards one after the other: ~1 core of
     * 2 used, where the same documents in arrival order used 1.6).
     */
    static List<Item> interleaved(Map<ShardId, List<IndexRecord>> batches, IndexNames names) {
        List<ShardId> active = new ArrayList<>(batches.keySet()); // shards with records left, in the batches' order
        Map<ShardId, String> indices = new HashMap<>();
        active.forEach(shard -> indices.put(shard, names.of(shard)));
        List<Item> items =
                new ArrayList<>(batches.values().stream().mapToInt(List::size).sum());
        for (int i = 0; !active.isEmpty(); i++) {
            int kept = 0;
            for (ShardId shard : active) {
                List<IndexRecord> records = batches.get(shard);
                if (i < records.size()) {
                    items.add(new Item(shard, indices.get(shard), i, records.get(i)));
                }
                if (i + 1 < records.size()) {
                    active.set(kept++, shard); // a shard exhausted leaves the turn: each round costs its shards only
                }
            }
            active.subList(kept, active.size()).clear();
        }
        return items;
    }

    /** About a record's bulk lines: its source twice (the document's fields and the source), and the names. */
    private static long sizeHint(IndexRecord r) {
        return 2L * r.length() + 256;
    }

    /**
     * Every shard's records in the same bulks (each at most {@code bulk_bytes}), so the node writes the indices of a
     * poll in parallel; refusals are handed back to each shard by its own position.
     */
    @Override
    public Map<ShardId, Written> writeAll(Map<ShardId, List<IndexRecord>> batches) throws WriteFailed {
        return writeAll(prepare(batches));
    }

    @Override
    public Map<ShardId, Written> writeAll(Prepared prepared) throws WriteFailed {
        Map<ShardId, List<IndexRecord>> batches = prepared.batches();
        ShardId only = batches.size() == 1 ? batches.keySet().iterator().next() : null;
        String what = only != null ? names.of(only) : batches.size() + " indices";
        try {
            PreparedBulk bulk = prepared instanceof PreparedBulk p && p.store() == this
                    ? p
                    : (PreparedBulk) requirePrepared(prepare(batches), what);
            List<String> indices = new ArrayList<>(batches.size());
            for (ShardId shard : batches.keySet()) {
                indices.add(ensureIndex(shard));
            }
            if (only == null) {
                what = indices.size() <= 3
                        ? String.join(", ", indices)
                        : indices.size() + " indices (" + indices.get(0) + ", ...)";
            }
            List<Item> items = bulk.items();
            List<Rejection> rejected = bulk(
                    bulk.encoded(),
                    i -> items.get(i).index() + "/"
                            + items.get(i).record().record().recordId(),
                    what,
                    indices);
            Map<ShardId, List<Rejection>> byShard = new LinkedHashMap<>();
            for (Rejection r : rejected) {
                Item item = items.get(r.index());
                byShard.computeIfAbsent(item.shard(), s -> new ArrayList<>())
                        .add(new Rejection(item.inShard(), r.reason()));
            }
            Map<ShardId, Written> written = new LinkedHashMap<>();
            for (ShardId shard : batches.keySet()) {
                written.put(shard, new Written(byShard.getOrDefault(shard, List.of()), 0));
            }
            return written;
        } catch (IOException | RuntimeException e) {
            throw new WriteFailed(only, what, e);
        }
    }

    /** What {@link #prepare} made, or the reason it could not encode (it logged it). */
    private static Prepared requirePrepared(Prepared p, String what) throws IOException {
        if (!(p instanceof PreparedBulk)) {
            throw new IOException("the documents of " + what + " could not be encoded as bulk lines (see the log)");
        }
        return p;
    }

    @Override
    public List<Rejection> writeDeadLetters(ShardId shard, List<DeadLetterEntry> batch) throws IOException {
        String index = ensureIndex(shard);
        return bulk(
                BulkItems.encode(
                        batch,
                        (g, d) -> OpenSearchDocuments.deadLetter(g, index, d),
                        settings.bulkBytes(),
                        d -> 2L * d.length() + 512),
                i -> index + "/" + batch.get(i).id(),
                index,
                List.of(index));
    }

    /** Sends the items ({@link BulkSender}); returns those refused for themselves, by their position in the items. */
    private List<Rejection> bulk(BulkItems items, IntFunction<String> document, String what, List<String> indices)
            throws IOException {
        List<Rejection> rejected = sender.send(items, document, what);
        if (items.size() > 0) {
            uncommitted.addAll(indices);
            unrefreshed.addAll(indices);
        }
        return rejected;
    }

    private String ensureIndex(ShardId shard) throws IOException {
        String index = names.of(shard);
        if (known.contains(index)) {
            return index;
        }
        ObjectNode body = JSON.createObjectNode();
        body.putObject("mappings")
                .putObject("_meta")
                .put(IndexNames.META_KIND, shard.kind().name())
                .put(IndexNames.META_TENANT, shard.tenant())
                .put(IndexNames.META_DAY, shard.day().toString());
        OpenSearchClient.Response r = client.sendJson("PUT", "/" + index, JSON.writeValueAsBytes(body));
        if (!r.ok() && !r.text().contains("resource_already_exists_exception")) {
            expect(r, "creating index " + index);
        }
        if (known.size() >= KNOWN_INDICES) {
            known.clear();
        }
        known.add(index);
        return index;
    }

    @Override
    public int commit(Map<String, Long> offsets) throws IOException {
        if (uncommitted.isEmpty()) {
            return 0;
        }
        List<String> indices = List.copyOf(uncommitted);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String index : indices) {
            ObjectNode action = JSON.createObjectNode();
            action.putObject("index").put("_index", offsetsIndex).put("_id", index);
            body.write(JSON.writeValueAsBytes(action));
            body.write('\n');
            ObjectNode doc = JSON.createObjectNode();
            ObjectNode o = doc.putObject("offsets");
            offsets.forEach(o::put);
            body.write(JSON.writeValueAsBytes(doc));
            body.write('\n');
        }
        OpenSearchClient.Response r = client.send("POST", "/_bulk", body.toByteArray(), "application/x-ndjson");
        expect(r, "storing the offsets of " + indices.size() + " indices");
        if (JSON.readTree(r.body()).path("errors").asBoolean(false)) {
            throw new IOException("OpenSearch refused the offsets of " + indices + ": " + r.text());
        }
        uncommitted.removeAll(indices);
        return indices.size();
    }

    /**
     * Nothing to drop: every write OpenSearch acknowledged is already durable, and the caller's replay from its last
     * committed offsets overwrites the same documents (the {@code record_id} is the document id).
     */
    @Override
    public void rollback() {}

    /** Nothing is held per index between writes. */
    @Override
    public int closeIdle(Duration idle) {
        return 0;
    }

    /** Nothing is buffered here: a write returns once OpenSearch acknowledged it. */
    @Override
    public Backlog backlog() {
        return new Backlog(0, settings.bulkBytes());
    }

    @Override
    public void refresh() throws IOException {
        if (unrefreshed.isEmpty()) {
            return;
        }
        List<String> indices = List.copyOf(unrefreshed);
        unrefreshed.removeAll(indices);
        String path = indices.size() > 50
                ? "/" + names.pattern(ShardKind.RECORDS) + "," + names.pattern(ShardKind.DEAD_LETTERS) + "/_refresh"
                : "/" + String.join(",", indices) + "/_refresh";
        OpenSearchClient.Response r = client.send("POST", path + "?ignore_unavailable=true", null, null);
        if (!r.ok()) {
            unrefreshed.addAll(indices);
            expect(r, "refreshing " + indices.size() + " indices");
        }
    }

    @Override
    public boolean uncommitted(ShardId shard) {
        return uncommitted.contains(names.of(shard));
    }

    @Override
    public boolean delete(ShardId shard) throws IOException {
        String index = names.of(shard);
        known.remove(index);
        unrefreshed.remove(index);
        uncommitted.remove(index);
        OpenSearchClient.Response r = client.send("DELETE", "/" + index, null, null);
        if (r.status() == 404) {
            return false;
        }
        expect(r, "deleting index " + index);
        client.send("DELETE", "/" + offsetsIndex + "/_doc/" + encode(index), null, null);
        return true;
    }

    @Override
    public List<ShardId> shards(ShardKind kind) throws IOException {
        return list(client, names, kind);
    }

    /** Every shard of a kind the cluster holds under these names, sorted. */
    static List<ShardId> list(OpenSearchClient client, IndexNames names, ShardKind kind) throws IOException {
        OpenSearchClient.Response r = client.send(
                "GET",
                "/_cat/indices/" + names.pattern(kind) + "?format=json&h=index&expand_wildcards=open",
                null,
                null);
        if (r.status() == 404) {
            return List.of();
        }
        expect(r, "listing the indices " + names.pattern(kind));
        Set<ShardId> out = new LinkedHashSet<>();
        List<String> cut = new ArrayList<>();
        for (JsonNode row : JSON.readTree(r.body())) {
            String index = row.path("index").asText();
            Optional<ShardId> id = names.parse(kind, index);
            if (id.isPresent()) {
                out.add(id.get());
            } else if (names.isCut(index)) {
                cut.add(index);
            }
        }
        for (String index : cut) {
            metaShard(client, index).filter(s -> s.kind() == kind).ifPresent(out::add);
        }
        List<ShardId> sorted = new ArrayList<>(out);
        sorted.sort(null);
        return sorted;
    }

    private static Optional<ShardId> metaShard(OpenSearchClient client, String index) throws IOException {
        OpenSearchClient.Response r = client.send("GET", "/" + index + "/_mapping", null, null);
        if (!r.ok()) {
            return Optional.empty();
        }
        JsonNode meta = JSON.readTree(r.body()).path(index).path("mappings").path("_meta");
        try {
            return Optional.of(new ShardId(
                    ShardKind.valueOf(meta.path(IndexNames.META_KIND).asText()),
                    meta.path(IndexNames.META_TENANT).asText(),
                    java.time.LocalDate.parse(meta.path(IndexNames.META_DAY).asText())));
        } catch (RuntimeException e) {
            log.warn("index {} matches the store's names but its _meta names no shard: {}", index, e.toString());
            return Optional.empty();
        }
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) {
        return Optional.empty();
    }

    @Override
    public Map<String, Long> committedOffsets(ShardId shard) throws IOException {
        OpenSearchClient.Response r =
                client.send("GET", "/" + offsetsIndex + "/_doc/" + encode(names.of(shard)), null, null);
        if (r.status() == 404) {
            return Map.of();
        }
        expect(r, "reading the offsets of " + names.of(shard));
        JsonNode offsets = JSON.readTree(r.body()).path("_source").path("offsets");
        Map<String, Long> out = new LinkedHashMap<>();
        offsets.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asLong()));
        return out;
    }

    /** Nothing is held open: every write is acknowledged (durable) when it returns. */
    @Override
    public void close() {
        sender.close();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static void expect(OpenSearchClient.Response r, String what) throws IOException {
        if (!r.ok()) {
            String text = r.text();
            throw new IOException("OpenSearch answered " + r.status() + " to " + what + ": "
                    + (text.length() > 1000 ? text.substring(0, 1000) + "…" : text));
        }
    }
}
