package dev.logpipe.query.internal.loki;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.loki.LogQl.RangeAgg;
import dev.logpipe.query.internal.loki.LogQl.RangeFn;
import dev.logpipe.query.internal.loki.LogQl.VectorAgg;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The shortcut for what Grafana's volume histogram and most dashboards ask: {@code sum [by (label)]
 * (count_over_time|rate({selector}[range]))} with no pipeline, a selector the engine matches exactly, at most one
 * grouping label among {@code service}, {@code level}, {@code instance_id}, {@code region}, and windows that do not
 * overlap (range = step, or one step). It counts with the shards' time histograms, as {@code /api/v1/histogram}
 * does, instead of reading every record; the answer is the same (LokiApiTest compares the two paths).
 */
final class HistogramCounts {
    private HistogramCounts() {}

    /** The one label to group by ("" for none), or null when the shortcut does not apply. */
    static String applies(VectorAgg a, Steps steps) {
        if (a.op() != LogQl.VectorOp.SUM || !(a.inner() instanceof RangeAgg r)) {
            return null;
        }
        if ((r.fn() != RangeFn.COUNT_OVER_TIME && r.fn() != RangeFn.RATE)
                || r.unwrap() != null
                || !r.query().pipeline().isEmpty()
                || !exact(r.query().selector())
                || (steps.count() > 1 && r.rangeMillis() != steps.stepMillis())) {
            return null;
        }
        if (a.grouping() == null) {
            return "";
        }
        if (a.grouping().without()) {
            return null;
        }
        String label = "";
        for (String l : a.grouping().labels()) {
            if (Streams.TOP_LABELS.contains(l)) {
                if (!label.isEmpty() && !label.equals(l)) {
                    return null;
                }
                label = l;
            } else if (l.startsWith("fields_") || l.equals(Fields.TRACE_ID) || l.equals(Fields.SPAN_ID)) {
                return null; // a label records may hold
            } // else: no record without a pipeline has it (detected_level): grouping by it changes nothing
        }
        return label;
    }

    /** True when the engine matches every matcher exactly: = and != on the four labels, with short values. */
    static boolean exact(List<LogQl.Matcher> selector) {
        for (LogQl.Matcher m : selector) {
            boolean ok = Streams.TOP_LABELS.contains(m.name())
                    && !m.value().isEmpty()
                    && m.value().length() < Fields.MAX_KEYWORD_CHARS
                    && (m.op() == LogQl.MatchOp.EQ || m.op() == LogQl.MatchOp.NE);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** The sums per step, and the scan they stand for (its plan, outcomes and records counted). */
    record Counted(Value.Vector vector, RecordScan.Result scan) {}

    /** The sums per step, or null when a label's values could not all be counted (the caller reads records then). */
    static Counted count(Env env, Call call, Bounds bounds, VectorAgg a, String label, Steps steps) throws IOException {
        RangeAgg r = (RangeAgg) a.inner();
        long range = r.rangeMillis();
        long interval = steps.count() > 1 ? steps.stepMillis() : range;
        long start = steps.startMillis() - range + 1;
        TimeRange window = new TimeRange(start, steps.endMillis() + 1);
        ParsedQuery q =
                Streams.engineQuery(call.params().get("query", ""), r.query().selector());
        Plan plan = env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        window,
                        call.policy().maxWindow().toMillis(),
                        q,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
        ShardQuery sq = ShardQuery.of(
                call.tenant(), q, plan.range().fromMillis(), plan.range().toMillis());
        Map<ShardId, FanOut.Outcome<?>> outcomes = new LinkedHashMap<>();
        Histogram h = new Histogram(start, interval, steps.count());
        // one pass over the shards: each counts its total and its groups with one searcher, one point in time
        Map<ShardId, FanOut.Outcome<ShardCounts>> counted = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        (s, d) -> countShard(s, sq, label, h, d));
        long[] total = new long[h.buckets()];
        Map<String, long[]> summed = new HashMap<>();
        for (Map.Entry<ShardId, FanOut.Outcome<ShardCounts>> e : counted.entrySet()) {
            FanOut.Outcome<ShardCounts> o = e.getValue();
            outcomes.put(e.getKey(), o);
            if (!o.ok()) {
                continue;
            }
            if (!o.value().complete()) {
                return null; // a value the shard could not count exactly: the caller reads the records
            }
            add(total, o.value().total());
            o.value().groups().forEach((v, c) -> add(summed.computeIfAbsent(v, k -> new long[h.buckets()]), c));
        }
        long all = 0;
        for (long c : total) {
            all += c;
        }
        Map<String, long[]> groups = new LinkedHashMap<>();
        if (label.isEmpty()) {
            groups.put(null, total);
        } else {
            List<String> order = new ArrayList<>(summed.keySet());
            order.sort(Comparator.nullsLast(Comparator.<String>comparingLong(v -> -sum(summed.get(v)))
                    .thenComparing(Comparator.naturalOrder())));
            order.forEach(v -> groups.put(v, summed.get(v)));
        }
        double seconds = range / 1000d;
        Value.Vector out = new Value.Vector();
        groups.forEach((value, counts) -> {
            double[] v = new double[steps.count()];
            boolean any = false;
            for (int k = 0; k < v.length; k++) {
                if (counts[k] > 0) {
                    v[k] = r.fn() == RangeFn.RATE ? counts[k] / seconds : counts[k];
                    any = true;
                } else {
                    v[k] = Double.NaN;
                }
            }
            if (any) {
                SortedMap<String, String> labels = new TreeMap<>();
                if (value != null) {
                    labels.put(label, value);
                }
                out.series().put(labels, v);
            }
        });
        return new Counted(out, new RecordScan.Result(plan, outcomes, all, 0, false));
    }

    /**
     * One shard's counts per bucket: its total, and grouped by {@code label} each value's ({@code null}: the records
     * without it); {@code complete} false when a value could not be counted exactly (too many, or maybe capped).
     */
    record ShardCounts(long[] total, Map<String, long[]> groups, boolean complete) {}

    /**
     * Counts one shard with one searcher: the total, then each value of the label but the most frequent, which is what
     * the others leave of the total when every record has the label (every record has a level, most are INFO: one
     * pass over most of the records saved). Only on a searcher of one point in time ({@link ShardSearcher#pointInTime},
     * the Lucene store's), where that difference is exact; elsewhere every value is counted.
     */
    static ShardCounts countShard(ShardSearcher s, ShardQuery sq, String label, Histogram h, long deadline)
            throws IOException {
        long[] total = s.histogram(sq, h, deadline);
        if (label.isEmpty()) {
            return new ShardCounts(total, Map.of(), true);
        }
        Values values = s.values(sq, label, MetricEval.MAX_VALUES, deadline);
        if (!values.complete() || values.overflow() > 0) {
            return new ShardCounts(total, Map.of(), false);
        }
        // the difference is exact only when every call sees the same documents (not so on OpenSearch: each is a search)
        boolean subtract = s.pointInTime() && values.missing() == 0;
        String largest = null;
        for (Map.Entry<String, Long> e : values.counts().entrySet()) {
            if (e.getKey().length() >= Fields.MAX_KEYWORD_CHARS) {
                return new ShardCounts(total, Map.of(), false); // maybe capped in the index: the records tell
            }
            if (subtract && (largest == null || e.getValue() > values.counts().get(largest))) {
                largest = e.getKey();
            }
        }
        Map<String, long[]> groups = new HashMap<>();
        long[] rest = total.clone();
        for (String v : values.counts().keySet()) {
            if (!v.equals(largest)) {
                long[] c = s.histogram(sq.with(new ShardQuery.Exact(label, v)), h, deadline);
                groups.put(v, c);
                for (int k = 0; k < c.length; k++) {
                    rest[k] -= c[k];
                }
            }
        }
        if (largest != null) {
            groups.put(largest, rest);
        } else if (values.missing() > 0) { // the records without the label (never below 0: calls may see more)
            for (int k = 0; k < rest.length; k++) {
                rest[k] = Math.max(0, rest[k]);
            }
            groups.put(null, rest);
        }
        return new ShardCounts(total, groups, true);
    }

    private static void add(long[] into, long[] counts) {
        for (int k = 0; k < into.length; k++) {
            into[k] += counts[k];
        }
    }

    private static long sum(long[] counts) {
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        return n;
    }
}
