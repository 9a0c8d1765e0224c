package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.EngineRequests;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The read side on an OpenSearch cluster, for any number of query services: a tenant's shards are its indices of the
 * store's names ({@link IndexNames}), and a searcher over one is {@link OpenSearchShardSearcher}. No metadata for
 * pruning yet, so the query service prunes nothing on this engine (every index of the range is searched); the field
 * names of an index come from its mapping ({@link #latestMetadata}).
 *
 * <p>A query asks the cluster once per call over all the shards it searches together ({@code _msearch}, {@link
 * #callAll}; a call the query service makes shard by shard, once per shard) and nothing else: the list of indices is
 * read at most once
 * per {@link #LIST_TTL} for all tenants (a day's new index is searched within that, as its first records become
 * visible only after the index's refresh interval anyway), and {@link #open} does not look the index up. A searcher of
 * an index deleted since it was listed (retention, a tenant deleted) answers as an empty index. Thread-safe.
 */
public final class OpenSearchShards implements ShardSource {
    /** How long a listing of the indices is used before the cluster is asked again. */
    public static final Duration LIST_TTL = Duration.ofSeconds(1);

    private static final ObjectMapper JSON = new ObjectMapper();
    private final OpenSearchClient client;
    private final IndexNames names;
    private final long ttlNanos;
    private final LongSupplier nanoTime;
    private final Map<ShardKind, Listing> listings = new EnumMap<>(ShardKind.class); // guarded by itself

    /** One reading of the indices of a kind, and when it was read. */
    private record Listing(List<ShardId> shards, long readAtNanos) {}

    private OpenSearchShards(OpenSearchClient client, IndexNames names, Duration ttl, LongSupplier nanoTime) {
        this.client = client;
        this.names = names;
        this.ttlNanos = ttl.toNanos();
        this.nanoTime = nanoTime;
    }

    public static OpenSearchShards open(OpenSearchSettings settings) throws IOException {
        return open(settings, LIST_TTL, System::nanoTime);
    }

    /** As {@link #open(OpenSearchSettings)}, the listing kept {@code ttl} by the clock {@code nanoTime}. */
    static OpenSearchShards open(OpenSearchSettings settings, Duration ttl, LongSupplier nanoTime) throws IOException {
        return new OpenSearchShards(
                new OpenSearchClient(settings), new IndexNames(settings.indexPrefix()), ttl, nanoTime);
    }

    @Override
    public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
        return listing(kind).stream().filter(s -> s.tenant().equals(tenant)).toList();
    }

    /**
     * Every shard of the kind, read again once the last reading is {@link #LIST_TTL} old; concurrent queries wait for
     * one reading instead of each sending their own.
     */
    private List<ShardId> listing(ShardKind kind) throws IOException {
        synchronized (listings) {
            Listing last = listings.get(kind);
            long now = nanoTime.getAsLong();
            if (last != null && now - last.readAtNanos() < ttlNanos) {
                return last.shards();
            }
            List<ShardId> shards = List.copyOf(OpenSearchStore.list(client, names, kind));
            listings.put(kind, new Listing(shards, now));
            return shards;
        }
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) {
        return Optional.empty(); // no complete labels and time range yet: nothing is pruned on this engine
    }

    /**
     * The structured field names of the shard's index and their kinds, read from its mapping (for listing fields, never
     * for pruning): a name's keyword is {@code KEYWORD} (a true/false value is indexed the same way), its {@code #long}
     * or {@code #double} companion adds {@code LONG} or {@code DOUBLE}. Empty when the index does not exist.
     */
    @Override
    public Optional<ShardMetadata> latestMetadata(ShardId shard) throws IOException {
        String index = names.of(shard);
        OpenSearchClient.Response r = client.send("GET", "/" + index + "/_mapping", null, null);
        if (r.status() == 404) {
            return Optional.empty();
        }
        OpenSearchStore.expect(r, "reading the mapping of " + index);
        JsonNode properties = JSON.readTree(r.body())
                .path(index)
                .path("mappings")
                .path("properties")
                .path("fields")
                .path("properties");
        SortedMap<String, SortedSet<FieldKind>> fields = new TreeMap<>();
        properties.fieldNames().forEachRemaining(escaped -> {
            for (FieldKind kind : new FieldKind[] {FieldKind.LONG, FieldKind.DOUBLE}) {
                if (escaped.endsWith(kind.suffix())) {
                    String name = OpenSearchDocuments.structuredName(escaped.substring(
                            0, escaped.length() - kind.suffix().length()));
                    if (name != null) {
                        fields.computeIfAbsent(name, k -> new TreeSet<>()).add(kind);
                    }
                    return;
                }
            }
            String name = OpenSearchDocuments.structuredName(escaped);
            if (name != null) {
                fields.computeIfAbsent(name, k -> new TreeSet<>()).add(FieldKind.KEYWORD);
            }
        });
        ShardMetadata empty = ShardMetadata.empty(shard);
        return Optional.of(new ShardMetadata(
                empty.kind(),
                empty.tenant(),
                empty.day(),
                0,
                null,
                null,
                empty.labels(),
                empty.truncatedLabels(),
                fields,
                false,
                ShardMetadata.FieldsNotIndexed.NONE,
                null,
                empty.offsets()));
    }

    /**
     * A searcher of the shard's index, without asking the cluster whether it exists (one request less per shard and
     * query): one that does not exist, or no longer, answers as an empty index.
     */
    @Override
    public Optional<ShardSearcher> open(ShardId shard) {
        return Optional.of(new OpenSearchShardSearcher(client, shard, names.of(shard)));
    }

    /** The requests this reading side sent to the cluster, by endpoint, for the query service's metrics. */
    public EngineRequests requests() {
        return client.requests();
    }

    /** True: a query's shards are asked in one {@code _msearch} rather than one request each. */
    @Override
    public boolean callsTogether() {
        return true;
    }

    /**
     * The call on every searcher's index in one {@code _msearch} (one alone: one {@code _search}): each index's search
     * is the one its searcher sends alone, with its own timeout, and each answer is read as its searcher reads it; an
     * item OpenSearch refused with a 400 is a query it cannot run ({@link IllegalArgumentException}), another error of
     * an item fails that shard only. An index deleted since it was listed answers as an empty one.
     */
    @Override
    public <T> List<ShardCall.Answer<T>> callAll(List<ShardSearcher> searchers, ShardCall<T> call, long deadlineNanos)
            throws IOException {
        if (searchers.size() == 1) {
            try {
                return List.of(
                        ShardCall.Answer.of(((OpenSearchShardSearcher) searchers.get(0)).run(call, deadlineNanos)));
            } catch (IOException | RuntimeException e) {
                return List.of(ShardCall.Answer.failed(e));
            }
        }
        List<OpenSearchShardSearcher.Search<T>> searches = new ArrayList<>(searchers.size());
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (ShardSearcher s : searchers) {
            OpenSearchShardSearcher searcher = (OpenSearchShardSearcher) s;
            OpenSearchShardSearcher.Search<T> search = searcher.search(call, deadlineNanos);
            searches.add(search);
            ObjectNode header = JSON.createObjectNode();
            header.put("index", searcher.index()).put("ignore_unavailable", true);
            JSON.writeValue(body, header);
            body.write('\n');
            JSON.writeValue(body, search.body());
            body.write('\n');
        }
        OpenSearchClient.Response r;
        try {
            r = client.send("POST", "/_msearch", body.toByteArray(), "application/x-ndjson", waitFor(deadlineNanos));
        } catch (HttpTimeoutException e) { // the query's deadline passed: every day timed out, no thread held longer
            List<ShardCall.Answer<T>> late = new ArrayList<>(searchers.size());
            searchers.forEach(s -> late.add(ShardCall.Answer.failed(new ShardSearcher.TimedOut(s.shard()))));
            return late;
        }
        OpenSearchStore.expect(r, "a search of " + searchers.size() + " indices");
        JsonNode responses = JSON.readTree(r.body()).path("responses");
        List<ShardCall.Answer<T>> out = new ArrayList<>(searchers.size());
        for (int i = 0; i < searchers.size(); i++) {
            OpenSearchShardSearcher searcher = (OpenSearchShardSearcher) searchers.get(i);
            JsonNode answer = responses.path(i);
            try {
                out.add(ShardCall.Answer.of(itemValue(searcher, searches.get(i), answer)));
            } catch (IOException | RuntimeException e) {
                out.add(ShardCall.Answer.failed(e));
            }
        }
        return out;
    }

    /** The sources of every searcher's documents in one {@code _mget} ({@link #sources}). */
    @Override
    public String[][] sourcesAll(List<ShardSearcher> searchers, List<int[]> docs, ShardSearcher.SourceBudget budget)
            throws IOException {
        List<OpenSearchShardSearcher> own = new ArrayList<>(searchers.size());
        searchers.forEach(s -> own.add((OpenSearchShardSearcher) s));
        return sources(client, own, docs, budget);
    }

    /**
     * The stored records of documents of several searchers' indices, read in one {@code _mget} by index and id:
     * {@code out[i][j]} for {@code docs.get(i)[j]}; null where the budget refused it (asked once the source arrived,
     * with its place among all the documents) or where the document is gone (deleted since its key was read).
     */
    static String[][] sources(
            OpenSearchClient client,
            List<OpenSearchShardSearcher> searchers,
            List<int[]> docs,
            ShardSearcher.SourceBudget budget)
            throws IOException {
        String[][] out = new String[searchers.size()][];
        ObjectNode body = JSON.createObjectNode();
        com.fasterxml.jackson.databind.node.ArrayNode wanted = body.putArray("docs");
        int n = 0;
        for (int i = 0; i < searchers.size(); i++) {
            out[i] = new String[docs.get(i).length];
            for (String id : searchers.get(i).ids(docs.get(i))) {
                wanted.addObject().put("_index", searchers.get(i).index()).put("_id", id);
                n++;
            }
        }
        if (n == 0) {
            return out;
        }
        OpenSearchClient.Response r = client.sendJson("POST", "/_mget", JSON.writeValueAsBytes(body));
        OpenSearchStore.expect(r, "reading sources of " + n + " documents");
        JsonNode found = JSON.readTree(r.body()).path("docs");
        int at = 0;
        for (int i = 0; i < searchers.size(); i++) {
            for (int j = 0; j < out[i].length; j++, at++) {
                JsonNode doc = found.path(at);
                if (!doc.path("found").asBoolean(false)) {
                    continue; // deleted since its key was read, or its index is gone
                }
                String source =
                        doc.path("_source").path(OpenSearchDocuments.SOURCE).asText();
                if (budget.take(at, source.getBytes(StandardCharsets.UTF_8).length)) {
                    out[i][j] = source;
                }
            }
        }
        return out;
    }

    /**
     * How long a round trip of a query may wait for its answer: until the query's deadline and a second more (each
     * search's own timeout ends it sooner on a healthy cluster; this bounds a cluster that does not answer at all).
     */
    static Duration waitFor(long deadlineNanos) {
        if (deadlineNanos == Long.MAX_VALUE) {
            return ChronoUnit.FOREVER.getDuration();
        }
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())).plus(GRACE);
    }

    /** What a round trip may wait past its query's deadline. */
    static final Duration GRACE = Duration.ofSeconds(1);

    private static <T> T itemValue(
            OpenSearchShardSearcher searcher, OpenSearchShardSearcher.Search<T> search, JsonNode answer)
            throws IOException {
        if (answer.isMissingNode()) {
            throw new IOException("OpenSearch's _msearch answer has no item for " + searcher.index());
        }
        if (answer.has("error")) {
            String reason = OpenSearchShardSearcher.reason(answer.path("error"));
            if (answer.path("status").asInt() == 400) {
                throw new IllegalArgumentException(
                        "OpenSearch cannot run the query on " + searcher.index() + ": " + reason);
            }
            throw new IOException("a search of " + searcher.index() + " failed with status "
                    + answer.path("status").asInt() + ": " + reason);
        }
        return searcher.read(search, answer);
    }
}
