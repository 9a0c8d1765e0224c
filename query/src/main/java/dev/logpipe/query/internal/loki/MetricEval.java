package dev.logpipe.query.internal.loki;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.loki.LogQl.Expr;
import dev.logpipe.query.internal.loki.LogQl.RangeAgg;
import dev.logpipe.query.internal.loki.LogQl.RangeFn;
import dev.logpipe.query.internal.plan.TimeRange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Evaluates a metric expression over {@link Steps}: each range function scans its log query's records once, oldest
 * first, through {@link RecordScan} (so the planner, budget, deadline and tenant scope of the native API apply) and
 * adds each sample to every step whose window holds it; aggregations and operators then work on those arrays. Memory
 * is bounded by {@link #MAX_CELLS} series × steps and {@link #MAX_SAMPLES} kept samples (quantiles); past either the
 * query is refused with a 400 that says how to narrow it. Not thread-safe (one per request).
 */
final class MetricEval {
    static final long MAX_CELLS = 2_000_000;
    static final long MAX_SAMPLES = 1_000_000;
    static final int MAX_VALUES = 10_000;

    private final Env env;
    private final Call call;
    private final Bounds bounds;
    private final Steps steps;
    /** The range functions a sum can be pushed into: each is linear in the samples of its window. */
    private static final java.util.Set<RangeFn> ADDITIVE = java.util.EnumSet.of(
            RangeFn.COUNT_OVER_TIME, RangeFn.RATE, RangeFn.BYTES_OVER_TIME, RangeFn.BYTES_RATE, RangeFn.SUM_OVER_TIME);

    private final List<RecordScan.Result> scans = new ArrayList<>();
    private long samples;

    MetricEval(Env env, Call call, Bounds bounds, Steps steps) {
        this.env = env;
        this.call = call;
        this.bounds = bounds;
        this.steps = steps;
    }

    List<RecordScan.Result> scans() {
        return scans;
    }

    Value eval(Expr e) throws IOException {
        if (e instanceof LogQl.Scalar s) {
            double[] v = new double[steps.count()];
            Arrays.fill(v, s.value());
            return new Value.Scalar(v);
        }
        if (e instanceof LogQl.VectorLiteral l) {
            double[] v = new double[steps.count()];
            Arrays.fill(v, l.value());
            Value.Vector out = new Value.Vector();
            out.series().put(new TreeMap<>(), v);
            return out;
        }
        if (e instanceof LogQl.Negate n) {
            return Operators.apply(LogQl.BinaryOp.MUL, eval(n.inner()), scalar(-1), false, steps.count());
        }
        if (e instanceof LogQl.Binary b) {
            return Operators.apply(b.op(), eval(b.left()), eval(b.right()), b.bool(), steps.count());
        }
        if (e instanceof LogQl.VectorAgg a) {
            String label = HistogramCounts.applies(a, steps);
            if (label != null) {
                HistogramCounts.Counted counted = HistogramCounts.count(env, call, bounds, a, label, steps);
                if (counted != null) {
                    scans.add(counted.scan());
                    return counted.vector();
                }
            }
            if (a.op() == LogQl.VectorOp.SUM
                    && a.inner() instanceof RangeAgg r
                    && r.grouping() == null
                    && ADDITIVE.contains(r.fn())) {
                // a sum of additive range functions is the function over the group's merged samples: count per
                // group while reading, instead of a series per stream summed afterwards (records' fields are stream
                // labels: a series per stream can run into the millions)
                LogQl.Grouping g = a.grouping() == null ? new LogQl.Grouping(false, List.of()) : a.grouping();
                return Aggregations.apply(a, (Value.Vector) range(r, g), steps.count());
            }
            Value inner = eval(a.inner());
            if (!(inner instanceof Value.Vector v)) {
                throw refuse("an aggregation needs a vector, not a scalar");
            }
            return Aggregations.apply(a, v, steps.count());
        }
        return range((RangeAgg) e);
    }

    private Value scalar(double x) {
        double[] v = new double[steps.count()];
        Arrays.fill(v, x);
        return new Value.Scalar(v);
    }

    /** Per series: what the range function needs of the samples in each step's window. */
    private final class Cells {
        final double[] count = new double[steps.count()];
        final double[] sum;
        final double[] min;
        final double[] max;
        final double[] first;
        final double[] last;
        double[] times = new double[0];
        double[] values = new double[0];
        int n;

        Cells(RangeFn fn) {
            int c = steps.count();
            sum = new double[c];
            min = fn == RangeFn.MIN_OVER_TIME ? filled(c, Double.POSITIVE_INFINITY) : null;
            max = fn == RangeFn.MAX_OVER_TIME ? filled(c, Double.NEGATIVE_INFINITY) : null;
            first = fn == RangeFn.FIRST_OVER_TIME ? filled(c, Double.NaN) : null;
            last = fn == RangeFn.LAST_OVER_TIME ? new double[c] : null;
        }

        void keep(long t, double v) {
            if (n == times.length) {
                int size = Math.max(16, n * 2);
                times = Arrays.copyOf(times, size);
                values = Arrays.copyOf(values, size);
            }
            times[n] = t;
            values[n] = v;
            n++;
        }
    }

    private static double[] filled(int n, double v) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    private Value range(RangeAgg r) throws IOException {
        return range(r, r.grouping());
    }

    /** The range function per series, the series being the lines' labels grouped by {@code grouping}. */
    private Value range(RangeAgg r, LogQl.Grouping grouping) throws IOException {
        long range = r.rangeMillis();
        TimeRange window = new TimeRange(steps.startMillis() - range + 1, steps.endMillis() + 1);
        Pipeline pipeline = new Pipeline(r.query());
        ParsedQuery q = Streams.engineQuery(call.params().get("query", ""), r.query());
        Map<SortedMap<String, String>, Cells> series = new HashMap<>();
        RangeFn fn = r.fn();
        RecordScan.Result result = RecordScan.scan(
                env,
                call,
                bounds,
                new RecordScan.Ask(q, window, ShardSearcher.Order.OLDEST_FIRST),
                (t, record, bytes) -> {
                    Pipeline.Line line = new Pipeline.Line(Streams.labels(record), record.message());
                    if (!pipeline.run(line)) {
                        return true;
                    }
                    double v = 1;
                    if (r.unwrap() != null) {
                        String raw = line.labels.get(r.unwrap().label());
                        Double d = raw == null
                                ? null
                                : Pipeline.number(raw, r.unwrap().kind());
                        if (d == null) {
                            line.labels.putIfAbsent(Pipeline.ERROR, "SampleExtractionErr");
                        } else {
                            v = d;
                        }
                        line.labels.remove(r.unwrap().label());
                    } else if (fn == RangeFn.BYTES_OVER_TIME || fn == RangeFn.BYTES_RATE) {
                        v = line.text.getBytes(StandardCharsets.UTF_8).length;
                    }
                    String error = line.labels.get(Pipeline.ERROR);
                    if (error != null) {
                        throw refuse("pipeline error: " + error + " on a line of " + Streams.identity(line.labels)
                                + "; drop such lines with | __error__=\"\"");
                    }
                    SortedMap<String, String> key = Aggregations.group(Streams.identity(line.labels), grouping);
                    Cells c = series.get(key);
                    if (c == null) {
                        if ((series.size() + 1L) * steps.count() > MAX_CELLS) {
                            throw refuse("the query makes more than " + MAX_CELLS + " series × steps; aggregate "
                                    + "(sum by (...)), narrow the selector or use a larger step");
                        }
                        c = new Cells(fn);
                        series.put(key, c);
                    }
                    add(c, fn, t, v, range);
                    return true;
                },
                () -> 0);
        scans.add(result);
        if (result.timedOut()) {
            throw Bounds.timedOut(env.config().limits().queryTimeout());
        }
        Value.Vector out = new Value.Vector();
        double seconds = range / 1000d;
        series.forEach((labels, c) -> out.series().put(labels, finish(c, fn, r.param(), seconds, range)));
        return out;
    }

    private void add(Cells c, RangeFn fn, long t, double v, long range) {
        if (fn == RangeFn.QUANTILE_OVER_TIME) {
            if (++samples > MAX_SAMPLES) {
                throw refuse("quantile_over_time keeps at most " + MAX_SAMPLES + " samples; narrow the query");
            }
            c.keep(t, v);
        }
        int from = steps.first(t);
        int to = steps.last(t, range);
        for (int k = from; k <= to; k++) {
            c.count[k]++;
            c.sum[k] += v;
            if (c.min != null) {
                c.min[k] = Math.min(c.min[k], v);
            }
            if (c.max != null) {
                c.max[k] = Math.max(c.max[k], v);
            }
            if (c.first != null && Double.isNaN(c.first[k])) {
                c.first[k] = v; // samples arrive oldest first
            }
            if (c.last != null) {
                c.last[k] = v;
            }
        }
    }

    private double[] finish(Cells c, RangeFn fn, Double param, double seconds, long range) {
        int n = steps.count();
        double[] out = new double[n];
        int lo = 0;
        int hi = 0;
        for (int k = 0; k < n; k++) {
            if (c.count[k] == 0) {
                out[k] = Double.NaN;
                continue;
            }
            out[k] = switch (fn) {
                case COUNT_OVER_TIME -> c.count[k];
                case RATE, BYTES_RATE -> c.sum[k] / seconds;
                case BYTES_OVER_TIME, SUM_OVER_TIME -> c.sum[k];
                case AVG_OVER_TIME -> c.sum[k] / c.count[k];
                case MIN_OVER_TIME -> c.min[k];
                case MAX_OVER_TIME -> c.max[k];
                case FIRST_OVER_TIME -> c.first[k];
                case LAST_OVER_TIME -> c.last[k];
                case QUANTILE_OVER_TIME -> {
                    long t = steps.at(k);
                    while (lo < c.n && c.times[lo] <= t - range) {
                        lo++;
                    }
                    while (hi < c.n && c.times[hi] <= t) {
                        hi++;
                    }
                    yield quantile(param, Arrays.copyOfRange(c.values, lo, hi));
                }
            };
        }
        return out;
    }

    /** Prometheus' quantile: linear interpolation between the closest ranks; φ outside [0, 1] is ±Inf. */
    static double quantile(double phi, double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        if (phi < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (phi > 1) {
            return Double.POSITIVE_INFINITY;
        }
        Arrays.sort(values);
        double rank = phi * (values.length - 1);
        int below = (int) Math.floor(rank);
        int above = Math.min(values.length - 1, below + 1);
        double weight = rank - below;
        return values[below] * (1 - weight) + values[above] * weight;
    }

    static Refusal refuse(String message) {
        return new Refusal(400, "bad_query", message);
    }

    /** Sorts series by their labels, for answers that do not depend on hash order. */
    static List<Map.Entry<SortedMap<String, String>, double[]>> sorted(Value.Vector v) {
        List<Map.Entry<SortedMap<String, String>, double[]>> out =
                new ArrayList<>(v.series().entrySet());
        out.sort(Comparator.comparing(e -> e.getKey().toString()));
        return out;
    }
}
