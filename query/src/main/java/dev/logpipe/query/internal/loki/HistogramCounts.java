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

    /** The sums per step, or null when a label's values could not all be counted (the caller reads records then). */
    static Value.Vector count(
            Env env, Call call, Bounds bounds, VectorAgg a, String label, Steps steps, List<RecordScan.Result> scans)
            throws IOException {
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
        Map<String, long[]> groups = new LinkedHashMap<>();
        long[] total = histogram(env, bounds, plan, sq, new Histogram(start, interval, steps.count()), outcomes);
        long all = 0;
        for (long c : total) {
            all += c;
        }
        if (label.isEmpty()) {
            groups.put(null, total);
        } else {
            Map<ShardId, FanOut.Outcome<Values>> values = env.fanOut()
                    .run(
                            plan.searched(),
                            env.config().limits().shardConcurrency(),
                            bounds.deadlineNanos(),
                            (s, d) -> s.values(sq, label, MetricEval.MAX_VALUES, d));
            List<String> names = new ArrayList<>();
            Map<String, Long> sizes = new LinkedHashMap<>();
            boolean everyShardCounted = true;
            long missing = 0;
            for (FanOut.Outcome<Values> o : values.values()) {
                if (o.ok()) {
                    if (!o.value().complete() || o.value().overflow() > 0) {
                        return null;
                    }
                    missing += o.value().missing();
                    for (Map.Entry<String, Long> e : o.value().counts().entrySet()) {
                        String v = e.getKey();
                        if (v.length() >= Fields.MAX_KEYWORD_CHARS) {
                            return null; // maybe capped in the index: the records tell the whole value
                        }
                        if (!names.contains(v)) {
                            names.add(v);
                        }
                        sizes.merge(v, e.getValue(), Long::sum);
                    }
                } else {
                    everyShardCounted = false;
                }
            }
            // when every matching record has the label, the most frequent value is what the others leave of the
            // total: one pass over most of the records saved (every record has a level, most are INFO)
            String largest = null;
            if (everyShardCounted && missing == 0 && !names.isEmpty()) {
                largest = names.get(0);
                for (String v : names) {
                    if (sizes.get(v) > sizes.get(largest)) {
                        largest = v;
                    }
                }
            }
            long[] rest = total.clone();
            for (String v : names) {
                if (v.equals(largest)) {
                    continue;
                }
                long[] c = histogram(
                        env,
                        bounds,
                        plan,
                        sq.with(new ShardQuery.Exact(label, v)),
                        new Histogram(start, interval, steps.count()),
                        outcomes);
                groups.put(v, c);
                for (int k = 0; k < c.length; k++) {
                    rest[k] -= c[k];
                }
            }
            if (largest != null && !exactRest(rest, outcomes)) {
                // a shard failed in one pass, or records arrived between passes: count the largest value itself
                long[] c = histogram(
                        env,
                        bounds,
                        plan,
                        sq.with(new ShardQuery.Exact(label, largest)),
                        new Histogram(start, interval, steps.count()),
                        outcomes);
                groups.put(largest, c);
                for (int k = 0; k < c.length; k++) {
                    rest[k] -= c[k];
                }
                largest = null;
            }
            if (largest != null) {
                groups.put(largest, rest);
            } else if (missing > 0 || !everyShardCounted) {
                groups.put(null, rest); // records without the label
            }
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
        scans.add(new RecordScan.Result(plan, outcomes, all, 0, false));
        return out;
    }

    /**
     * Whether the total less the other values is the largest value's exact count: every pass answered from every
     * shard, and no bucket went below zero (which only records arriving between the passes can do).
     */
    private static boolean exactRest(long[] rest, Map<ShardId, FanOut.Outcome<?>> outcomes) {
        for (long c : rest) {
            if (c < 0) {
                return false;
            }
        }
        return outcomes.values().stream().allMatch(FanOut.Outcome::ok);
    }

    private static long[] histogram(
            Env env, Bounds bounds, Plan plan, ShardQuery sq, Histogram h, Map<ShardId, FanOut.Outcome<?>> outcomes) {
        Map<ShardId, FanOut.Outcome<long[]>> results = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        (s, d) -> s.histogram(sq, h, d));
        long[] counts = new long[h.buckets()];
        results.forEach((id, o) -> {
            if (o.ok()) {
                for (int k = 0; k < counts.length; k++) {
                    counts[k] += o.value()[k];
                }
            }
            if (!o.ok() || !outcomes.containsKey(id)) {
                outcomes.put(id, o);
            }
        });
        return counts;
    }
}
