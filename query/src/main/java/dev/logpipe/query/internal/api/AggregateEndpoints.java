package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code /api/v1/histogram} (counts per time bucket over the same plan a search uses, so they add up to what it
 * finds), {@code /api/v1/fields} (names and kinds from shard metadata, no shard opened) and
 * {@code /api/v1/fields/{name}/top} (value counts that add up: values + other + missing = total).
 */
public final class AggregateEndpoints {
    static final int MAX_BUCKETS = 10_000;
    static final int VALUES_PER_SHARD = 10_000;
    private static final long[] STEPS = {
        1_000,
        5_000,
        10_000,
        30_000,
        60_000,
        300_000,
        600_000,
        1_800_000,
        3_600_000,
        10_800_000,
        21_600_000,
        43_200_000,
        86_400_000,
        604_800_000
    };
    private final Env env;

    public AggregateEndpoints(Env env) {
        this.env = env;
    }

    private Plan plan(Call call, ParsedQuery q, TimeRange requested) throws IOException {
        call.audit().put("query", q.text());
        return env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        requested,
                        call.policy().maxWindow().toMillis(),
                        q,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
    }

    public Answer histogram(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        Params p = call.params();
        ParsedQuery q = Scope.query(p);
        TimeRange requested = Scope.range(p, env.clock().instant());
        Plan plan = plan(call, q, requested);
        TimeRange r = plan.range();
        long interval = interval(p.get("interval"), r);
        long start = Math.floorDiv(r.fromMillis(), interval) * interval;
        long span = Math.max(1, r.toMillis() - start);
        int buckets = (int) Math.min(MAX_BUCKETS + 1L, (span + interval - 1) / interval);
        if (buckets > MAX_BUCKETS) {
            throw Params.bad(
                    "interval: gives more than " + MAX_BUCKETS + " buckets over the range; choose a larger one");
        }
        ShardQuery sq = plan.shardQuery();
        Histogram asked = new Histogram(start, interval, buckets);
        Map<ShardId, FanOut.Outcome<long[]>> results = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        new ShardCall.HistogramOf(sq, asked));
        long[] counts = new long[buckets];
        for (FanOut.Outcome<long[]> o : results.values()) {
            if (o.ok()) {
                for (int i = 0; i < buckets; i++) {
                    counts[i] += o.value()[i];
                }
            }
        }
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("interval", format(interval));
        root.put("interval_ms", interval);
        ArrayNode b = root.putArray("buckets");
        long total = 0;
        for (int i = 0; i < buckets; i++) {
            b.addObject()
                    .put("start", Instant.ofEpochMilli(start + i * interval).toString())
                    .put("count", counts[i]);
            total += counts[i];
        }
        root.put("total", total);
        Scope.describe(root, plan, results, requested, env, call);
        QueryNotes.describe(root, q, plan, env);
        root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
        return Answer.ok(root.toString());
    }

    static long interval(String text, TimeRange r) {
        if (text == null || text.isEmpty() || text.equals("auto")) {
            long span = Math.max(1, r.toMillis() - r.fromMillis());
            for (long s : STEPS) {
                if (span / s <= 120) {
                    return s;
                }
            }
            return STEPS[STEPS.length - 1];
        }
        String t = text.trim();
        Duration d;
        if (t.matches("\\d{1,6}d")) {
            d = Duration.ofDays(Long.parseLong(t.substring(0, t.length() - 1)));
        } else {
            d = ConfigNode.parseDuration(t);
        }
        if (d == null || d.toMillis() < 1) {
            throw Params.bad("interval: must be a duration like 1s, 5m, 1h or 1d (or auto), was \"" + text + "\"");
        }
        return d.toMillis();
    }

    static String format(long ms) {
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    public Answer fields(Call call) throws IOException {
        Params p = call.params();
        TimeRange requested = Scope.range(p, env.clock().instant());
        Plan plan = plan(call, ParsedQuery.ALL, requested);
        SortedMap<String, SortedSet<String>> kinds = new TreeMap<>();
        for (String f : List.of(
                Fields.MESSAGE,
                Fields.LEVEL,
                Fields.SERVICE,
                Fields.INSTANCE_ID,
                Fields.REGION,
                Fields.TRACE_ID,
                Fields.SPAN_ID,
                Fields.RECORD_ID)) {
            kinds.put(f, new TreeSet<>(List.of(f.equals(Fields.MESSAGE) ? "TEXT" : "KEYWORD")));
        }
        kinds.put(Fields.EVENT_TIME, new TreeSet<>(List.of("TIME")));
        kinds.put(Fields.OBSERVED_TIME, new TreeSet<>(List.of("TIME")));
        boolean truncated = false;
        long notIndexedRecords = 0;
        long notIndexedValues = 0;
        SortedSet<String> notIndexedSample = new TreeSet<>();
        List<ShardId> all = new ArrayList<>(plan.searched());
        plan.skipped().forEach(s -> all.add(s.shard()));
        for (ShardId id : all) {
            ShardMetadata m = env.source().latestMetadata(id).orElse(null);
            if (m == null) {
                continue;
            }
            truncated |= m.fieldsTruncated();
            notIndexedRecords += m.fieldsNotIndexed().records();
            notIndexedValues += m.fieldsNotIndexed().values();
            for (String name : m.fieldsNotIndexed().sample()) {
                if (notIndexedSample.size() < ShardMetadata.NOT_INDEXED_SAMPLE) {
                    notIndexedSample.add(Fields.FIELDS_PREFIX + name);
                }
            }
            m.fields().forEach((name, ks) -> {
                SortedSet<String> set = kinds.computeIfAbsent(Fields.FIELDS_PREFIX + name, k -> new TreeSet<>());
                for (FieldKind k : ks) {
                    set.add(k.name());
                }
            });
        }
        ObjectNode root = Answer.JSON_NODES.objectNode();
        ArrayNode out = root.putArray("fields");
        kinds.forEach((name, ks) -> {
            ObjectNode f = out.addObject();
            f.put("name", name);
            ArrayNode t = f.putArray("types");
            ks.forEach(t::add);
        });
        root.put("truncated", truncated);
        // Fields past a shard's cap on distinct names: in the records' source, not searchable by name
        ObjectNode ni = root.putObject("not_indexed");
        ni.put("records", notIndexedRecords);
        ni.put("values", notIndexedValues);
        notIndexedSample.forEach(ni.putArray("sample")::add);
        ObjectNode r = root.putObject("range");
        r.put("from", Instant.ofEpochMilli(plan.range().fromMillis()).toString());
        r.put("to", Instant.ofEpochMilli(plan.range().toMillis()).toString());
        root.put("shards", all.size());
        return Answer.ok(root.toString());
    }

    /**
     * The field of {@code /fields/top?field=NAME} (any name, {@code /} and {@code %} included: the query string
     * carries what a path segment cannot, since the server refuses an encoded {@code /} in a path), or of
     * {@code /fields/NAME/top}, whose path arrives decoded once already.
     */
    static String topField(Call call) {
        String rest = call.pathRest(); // "/top" or "/<name>/top"
        if (rest.equals("/top")) {
            String name = call.params().get("field");
            if (name == null || name.isEmpty()) {
                throw Params.bad("field: required (GET /api/v1/fields/top?field=NAME)");
            }
            return name;
        }
        return rest.substring(1, rest.length() - "/top".length());
    }

    public Answer top(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        String name = topField(call);
        if (!(Fields.KEYWORDS.contains(name)
                || (name.startsWith(Fields.FIELDS_PREFIX) && name.length() > Fields.FIELDS_PREFIX.length()))) {
            throw Params.bad("field: top values are counted for level, service, instance_id, region, trace_id, "
                    + "span_id, record_id and fields.<name>, was \"" + name + "\"");
        }
        Params p = call.params();
        ParsedQuery q = Scope.query(p);
        int size = p.integer("size", 10, 1, 1000);
        TimeRange requested = Scope.range(p, env.clock().instant());
        Plan plan = plan(call, q, requested);
        ShardQuery sq = plan.shardQuery();
        Map<ShardId, FanOut.Outcome<Values>> results = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        new ShardCall.ValuesOf(sq, name, VALUES_PER_SHARD));
        Map<String, Long> counts = new HashMap<>();
        long matched = 0;
        long missing = 0;
        long overflow = 0;
        boolean complete = true;
        for (FanOut.Outcome<Values> o : results.values()) {
            if (o.ok()) {
                o.value().counts().forEach((k, v) -> counts.merge(k, v, Long::sum));
                matched += o.value().matched();
                missing += o.value().missing();
                overflow += o.value().overflow();
                complete &= o.value().complete();
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("field", name);
        ArrayNode vs = root.putArray("values");
        long shown = 0;
        for (int i = 0; i < Math.min(size, sorted.size()); i++) {
            vs.addObject()
                    .put("value", sorted.get(i).getKey())
                    .put("count", sorted.get(i).getValue());
            shown += sorted.get(i).getValue();
        }
        root.put("other", matched - missing - shown);
        root.put("missing", missing);
        root.put("total", matched);
        root.put("exact", complete && overflow == 0);
        Scope.describe(root, plan, results, requested, env, call);
        root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
        return Answer.ok(root.toString());
    }
}
