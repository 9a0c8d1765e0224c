package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One shard's index on OpenSearch as a {@link ShardSearcher}: every search is one request with the tenant, the time
 * range and the service's filters outside the user's query ({@link OpenSearchQueries}), sorted as the Lucene shards are
 * ({@code event_time} desc, {@code record_id} as unsigned bytes) with search-after, counted exactly up to 1,000 hits.
 * A key's {@code doc} is the position of its id among those this searcher handed out; {@link #sources} fetches them by
 * id. Not a point-in-time view: a record replaced between a page's keys and its sources comes back as replaced (the
 * same record, as a replay only overwrites with itself). The deadline goes to OpenSearch as the search's timeout; an
 * answer that timed out throws {@link TimedOut}. A source's length is known only once it arrived, so the budget is
 * asked then. An index that does not exist (deleted since it was listed) answers as an empty one: no keys, counts of 0,
 * no sources. Used by one request's threads; the ids it handed out are kept until it is closed.
 */
final class OpenSearchShardSearcher implements ShardSearcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TOTAL_HITS_THRESHOLD = 1000;
    /**
     * How far keys asked along with other shards' counts count their own matches: far enough that a day of ordinary
     * size is counted exactly in that round trip (a few milliseconds of the node's time, the same work the count it
     * saves would do), bounded so a huge day's page does not wait for all its matches to be counted (its total is then
     * counted within the query's exact-total budget, as before).
     */
    static final int TOTAL_HITS_ALONG_COUNTS = 100_000;

    private final OpenSearchClient client;
    private final ShardId shard;
    private final String index;
    private final List<String> ids = new ArrayList<>(); // guarded by itself
    private int docs = -1;

    OpenSearchShardSearcher(OpenSearchClient client, ShardId shard, String index) {
        this.client = client;
        this.shard = shard;
        this.index = index;
    }

    @Override
    public ShardId shard() {
        return shard;
    }

    @Override
    public synchronized int docs() {
        if (docs < 0) {
            try {
                docs = (int) Math.min(Integer.MAX_VALUE, count(null, Long.MAX_VALUE));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return docs;
    }

    private String defaultField() {
        return shard.kind() == ShardKind.DEAD_LETTERS ? Fields.DL_RAW : Fields.MESSAGE;
    }

    /** The query of a search: the service's part as filters, the user's as the one required clause. */
    private ObjectNode query(ShardQuery q) {
        ObjectNode bool = JSON.createObjectNode();
        ArrayNode filter = bool.putArray("filter");
        filter.addObject().putObject("term").put(Fields.TENANT_ID, q.tenant());
        filter.add(times(Fields.EVENT_TIME, q.fromMillis(), q.toMillis()));
        for (ShardQuery.Filter f : q.filters()) {
            if (f instanceof ShardQuery.Exact e) {
                filter.addObject().putObject("term").put(OpenSearchQueries.mapped(e.field()), e.value());
            } else if (f instanceof ShardQuery.LongRange r) {
                String field = OpenSearchQueries.mapped(r.field()) + FieldKind.LONG.suffix();
                filter.addObject()
                        .putObject("range")
                        .putObject(field)
                        .put("gte", r.lo())
                        .put("lte", r.hi());
            } else if (f instanceof ShardQuery.ObservedRange o) {
                filter.add(times(Fields.OBSERVED_TIME, o.fromMillis(), o.toMillis()));
            }
        }
        bool.putArray("must").add(OpenSearchQueries.translate(defaultField(), q.query()));
        ObjectNode out = JSON.createObjectNode();
        out.set("bool", bool);
        return out;
    }

    /** [from, to) of a time field, clamped to what OpenSearch's dates hold (every record's time is inside). */
    private static ObjectNode times(String field, long from, long to) {
        long limit = OpenSearchQueries.TIME_LIMIT;
        ObjectNode range = JSON.createObjectNode();
        range.putObject("range")
                .putObject(field)
                .put("format", "epoch_millis")
                .put("gte", Math.max(from, -limit))
                .put("lt", Math.min(to, limit));
        return range;
    }

    private ObjectNode search(ShardQuery q, long deadlineNanos) {
        ObjectNode body = JSON.createObjectNode();
        body.set("query", query(q));
        body.put("_source", false);
        if (deadlineNanos != Long.MAX_VALUE) {
            body.put("timeout", timeout(deadlineNanos - System.nanoTime()));
        }
        return body;
    }

    /**
     * The time left as a search's {@code timeout} in whole seconds, rounded up: the same for every search a query
     * service sends with the same budget, so a repeated aggregation's body is the same and OpenSearch's request cache
     * can answer it (a body naming the milliseconds left never repeats); the query service keeps its own deadline.
     */
    static String timeout(long nanosLeft) {
        return Math.max(1, (nanosLeft + 999_999_999L) / 1_000_000_000L) + "s";
    }

    private JsonNode send(String path, ObjectNode body, long deadlineNanos) throws IOException {
        if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) {
            throw new TimedOut(shard);
        }
        // an index deleted since it was listed answers as an empty one, not as an error
        OpenSearchClient.Response r;
        try {
            r = client.send(
                    "POST",
                    "/" + index + path + "?ignore_unavailable=true",
                    JSON.writeValueAsBytes(body),
                    "application/json",
                    OpenSearchShards.waitFor(deadlineNanos));
        } catch (java.net.http.HttpTimeoutException e) {
            throw new TimedOut(shard); // the query's deadline passed while the cluster had not answered
        }
        if (r.status() == 400) {
            throw new IllegalArgumentException("OpenSearch cannot run the query on " + index + ": " + reason(r));
        }
        OpenSearchStore.expect(r, "a search of " + index);
        JsonNode answer = JSON.readTree(r.body());
        if (answer.path("timed_out").asBoolean(false)) {
            throw new TimedOut(shard);
        }
        return answer;
    }

    private static String reason(OpenSearchClient.Response r) {
        try {
            return reason(JSON.readTree(r.body()).path("error"));
        } catch (IOException e) {
            return r.text();
        }
    }

    /** The first root cause's reason of an error OpenSearch answered, or the whole error. */
    static String reason(JsonNode error) {
        JsonNode cause = error.path("root_cause").path(0);
        return cause.isMissingNode() ? error.toString() : cause.path("reason").asText();
    }

    private synchronized int ref(String id) {
        ids.add(id);
        return ids.size() - 1;
    }

    private Key key(JsonNode hit) {
        JsonNode sort = hit.path("sort");
        String id = hit.path("_id").asText();
        return new Key(sort.path(0).asLong(), IdBytes.of(id), ref(id));
    }

    @Override
    public Keys keys(ShardQuery q, Order order, After after, int limit, long deadlineNanos) throws IOException {
        return run(new ShardCall.KeysOf(q, order, after, limit), deadlineNanos);
    }

    /**
     * A call as one {@code _search} of this searcher's index: its body and how its answer is read. What {@link
     * #keys}, {@link #count}, {@link #histogram} and {@link #values} send alone, and {@link OpenSearchShards#callAll}
     * sends for several searchers in one {@code _msearch}.
     */
    @SuppressWarnings("unchecked")
    <T> Search<T> search(ShardCall<T> call, long deadlineNanos) {
        Search<?> out;
        if (call instanceof ShardCall.KeysOf k) {
            out = keysSearch(k, TOTAL_HITS_THRESHOLD, deadlineNanos);
        } else if (call instanceof ShardCall.KeysThenCountsOf kc) {
            out = kc.countsOnly(shard)
                    ? countAsKeys(kc.keys().query(), kc.countDeadline(deadlineNanos))
                    : keysSearch(kc.keys(), TOTAL_HITS_ALONG_COUNTS, deadlineNanos);
        } else if (call instanceof ShardCall.CountOf c) {
            out = countSearch(c.query(), deadlineNanos);
        } else if (call instanceof ShardCall.HistogramOf h) {
            out = histogramSearch(h.query(), h.histogram(), deadlineNanos);
        } else if (call instanceof ShardCall.ValuesOf v) {
            out = valuesSearch(v.query(), v.field(), v.maxValues(), deadlineNanos);
        } else {
            throw new IllegalStateException("no search for " + call);
        }
        return (Search<T>) out;
    }

    /** The body of one {@code _search} of {@link #index} and how its answer becomes the call's value. */
    record Search<T>(ObjectNode body, Reading<T> reading) {}

    /** How an answer of a search becomes a value. */
    @FunctionalInterface
    interface Reading<T> {
        T read(JsonNode answer) throws IOException;
    }

    String index() {
        return index;
    }

    /** The call as one {@code _search} of this searcher's index. */
    <T> T run(ShardCall<T> call, long deadlineNanos) throws IOException {
        Search<T> search = search(call, deadlineNanos);
        return read(search, send("/_search", search.body(), deadlineNanos));
    }

    /** The value of an answer to one of this searcher's searches: {@link TimedOut} when the answer timed out. */
    <T> T read(Search<T> search, JsonNode answer) throws IOException {
        if (answer.path("timed_out").asBoolean(false)) {
            throw new TimedOut(shard);
        }
        return search.reading().read(answer);
    }

    /** The keys, their matches counted up to {@code countUpTo} (past it the total is a lower bound). */
    private Search<Keys> keysSearch(ShardCall.KeysOf k, int countUpTo, long deadlineNanos) {
        ObjectNode body = search(k.query(), deadlineNanos);
        boolean newest = k.order() == Order.NEWEST_FIRST;
        sort(body, Fields.EVENT_TIME, !newest, newest);
        if (k.after() != null) {
            body.putArray("search_after")
                    .add(k.after().eventTimeMillis())
                    .add(k.after().recordId());
        }
        body.put("size", k.limit()).put("track_total_hits", countUpTo);
        return new Search<>(body, answer -> {
            List<Key> keys = new ArrayList<>();
            for (JsonNode hit : answer.path("hits").path("hits")) {
                keys.add(key(hit));
            }
            JsonNode total = answer.path("hits").path("total");
            return new Keys(
                    keys,
                    total.path("value").asLong(),
                    "eq".equals(total.path("relation").asText()));
        });
    }

    /** Sorts by a field (ascending or not), then by record_id the same way as the merge key's order asks. */
    private static void sort(ObjectNode body, String field, boolean ascending, boolean idAscending) {
        ArrayNode sort = body.putArray("sort");
        sort.addObject().putObject(field).put("order", ascending ? "asc" : "desc");
        sort.addObject().putObject(Fields.RECORD_ID).put("order", idAscending ? "asc" : "desc");
    }

    @Override
    public String[] sources(int[] docs, SourceBudget budget) throws IOException {
        return OpenSearchShards.sources(client, List.of(this), List.of(docs), budget)[0];
    }

    /** The document ids of keys this searcher handed out, in the order of {@code docs}. */
    synchronized List<String> ids(int[] docs) {
        List<String> out = new ArrayList<>(docs.length);
        for (int d : docs) {
            out.add(ids.get(d));
        }
        return out;
    }

    @Override
    public List<LongKey> longKeys(
            ShardQuery q, String structuredField, boolean ascending, int limit, long deadlineNanos) throws IOException {
        ObjectNode body = search(q, deadlineNanos);
        ArrayNode sort = body.putArray("sort");
        String order = ascending ? "asc" : "desc";
        sort.addObject()
                .putObject(OpenSearchQueries.mapped(Fields.FIELDS_PREFIX + structuredField) + FieldKind.LONG.suffix())
                .put("order", order)
                .put("unmapped_type", "long");
        sort.addObject().putObject(Fields.EVENT_TIME).put("order", order);
        sort.addObject().putObject(Fields.RECORD_ID).put("order", order);
        body.put("size", limit).put("track_total_hits", false);
        List<LongKey> out = new ArrayList<>();
        for (JsonNode hit : send("/_search", body, deadlineNanos).path("hits").path("hits")) {
            JsonNode s = hit.path("sort");
            String id = hit.path("_id").asText();
            out.add(new LongKey(s.path(0).asLong(), new Key(s.path(1).asLong(), IdBytes.of(id), ref(id))));
        }
        return out;
    }

    @Override
    public List<LongKey> keysByTime(
            String timeField, ShardQuery q, long afterTime, String afterId, int limit, long deadlineNanos)
            throws IOException {
        ObjectNode body = search(q, deadlineNanos);
        sort(body, timeField, true, true);
        if (afterId != null) {
            body.putArray("search_after").add(afterTime).add(afterId);
        }
        body.put("size", limit).put("track_total_hits", false);
        List<LongKey> out = new ArrayList<>();
        for (JsonNode hit : send("/_search", body, deadlineNanos).path("hits").path("hits")) {
            long t = hit.path("sort").path(0).asLong();
            String id = hit.path("_id").asText();
            out.add(new LongKey(t, new Key(t, IdBytes.of(id), ref(id))));
        }
        return out;
    }

    @Override
    public long count(ShardQuery q, long deadlineNanos) throws IOException {
        return run(new ShardCall.CountOf(q), deadlineNanos);
    }

    /** A count as a search of no hits counting every match ({@code null}: every document of the index). */
    private Search<Long> countSearch(ShardQuery q, long deadlineNanos) {
        ObjectNode body = q == null ? JSON.createObjectNode() : search(q, deadlineNanos);
        body.put("size", 0).put("track_total_hits", true);
        return new Search<>(
                body, answer -> answer.path("hits").path("total").path("value").asLong());
    }

    /** The count as keys: none, and the exact total. */
    private Search<Keys> countAsKeys(ShardQuery q, long deadlineNanos) {
        Search<Long> count = countSearch(q, deadlineNanos);
        return new Search<>(
                count.body(), answer -> new Keys(List.of(), count.reading().read(answer), true));
    }

    @Override
    public long[] histogram(ShardQuery q, Histogram h, long deadlineNanos) throws IOException {
        return run(new ShardCall.HistogramOf(q, h), deadlineNanos);
    }

    private Search<long[]> histogramSearch(ShardQuery q, Histogram h, long deadlineNanos) {
        long end = h.startMillis() + h.intervalMillis() * h.buckets();
        ShardQuery inside = new ShardQuery(
                q.tenant(),
                q.query(),
                Math.max(q.fromMillis(), h.startMillis()),
                Math.max(Math.max(q.fromMillis(), h.startMillis()), Math.min(q.toMillis(), end)),
                q.filters());
        ObjectNode body = search(inside, deadlineNanos);
        body.put("size", 0).put("track_total_hits", false);
        body.putObject("aggs")
                .putObject("h")
                .putObject("date_histogram")
                .put("field", Fields.EVENT_TIME)
                .put("fixed_interval", h.intervalMillis() + "ms")
                .put("offset", "+" + Math.floorMod(h.startMillis(), h.intervalMillis()) + "ms")
                .put("min_doc_count", 1);
        return new Search<>(body, answer -> {
            long[] counts = new long[h.buckets()];
            for (JsonNode b : answer.path("aggregations").path("h").path("buckets")) {
                long i = (b.path("key").asLong() - h.startMillis()) / h.intervalMillis();
                if (i >= 0 && i < counts.length) {
                    counts[(int) i] += b.path("doc_count").asLong();
                }
            }
            return counts;
        });
    }

    @Override
    public Values values(ShardQuery q, String field, int maxValues, long deadlineNanos) throws IOException {
        return run(new ShardCall.ValuesOf(q, field, maxValues), deadlineNanos);
    }

    private Search<Values> valuesSearch(ShardQuery q, String field, int maxValues, long deadlineNanos) {
        ObjectNode body = search(q, deadlineNanos);
        String mapped = OpenSearchQueries.mapped(field);
        body.put("size", 0).put("track_total_hits", true);
        ObjectNode aggs = body.putObject("aggs");
        aggs.putObject("values").putObject("terms").put("field", mapped).put("size", Math.max(1, maxValues));
        aggs.putObject("missing").putObject("missing").put("field", mapped);
        return new Search<>(body, answer -> {
            Map<String, Long> counts = new LinkedHashMap<>();
            JsonNode terms = answer.path("aggregations").path("values");
            for (JsonNode b : terms.path("buckets")) {
                counts.put(b.path("key").asText(), b.path("doc_count").asLong());
            }
            long overflow = terms.path("sum_other_doc_count").asLong();
            long missing = answer.path("aggregations")
                    .path("missing")
                    .path("doc_count")
                    .asLong();
            long matched = answer.path("hits").path("total").path("value").asLong();
            return new Values(counts, overflow, missing, matched, overflow == 0);
        });
    }

    @Override
    public OptionalLong maxTime(String timeField) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("size", 0).put("track_total_hits", false);
        body.putObject("aggs").putObject("max").putObject("max").put("field", timeField);
        JsonNode max = send("/_search", body, Long.MAX_VALUE)
                .path("aggregations")
                .path("max")
                .path("value");
        return max.isNumber() ? OptionalLong.of(max.asLong()) : OptionalLong.empty();
    }

    @Override
    public synchronized void close() {
        ids.clear();
    }
}
