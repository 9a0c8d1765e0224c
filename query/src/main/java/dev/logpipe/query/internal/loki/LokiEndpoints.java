package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Loki's read API over logpipe (docs/loki.md): {@code /loki/api/v1/query_range}, {@code query}, {@code labels},
 * {@code label/{name}/values}, {@code series} and {@code index/stats}, with Loki's parameters and response shapes, as
 * Grafana's Loki data source calls them. Every one runs through the planner, the budget, the deadline, the answer
 * memory and the tenant scope of the native API ({@link RecordScan}); the caller ({@code QueryService}) has already
 * authenticated, refused foreign tenants and admitted the request, and audits it.
 */
public final class LokiEndpoints {
    public static final String PREFIX = "/loki/api/v1/";
    static final int MAX_LIMIT = 5000;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private final Env env;
    private final LabelEndpoints labels;
    private final VolumeEndpoint volume;

    public LokiEndpoints(Env env) {
        this.env = env;
        this.labels = new LabelEndpoints(env, this);
        this.volume = new VolumeEndpoint(env, this);
    }

    /** The endpoint name of a Loki path ({@code loki_query_range}, ...), or null when it is not one of ours. */
    public static String endpoint(String path) {
        if (path == null || !path.startsWith(PREFIX)) {
            return null;
        }
        String rest = path.substring(PREFIX.length());
        return switch (rest) {
            case "query_range" -> "loki_query_range";
            case "query" -> "loki_query";
            case "labels", "label" -> "loki_labels";
            case "series" -> "loki_series";
            case "index/stats" -> "loki_index_stats";
            case "index/volume" -> "loki_index_volume";
            case "index/volume_range" -> "loki_index_volume_range";
            case "tail" -> "loki_tail";
            default ->
                rest.startsWith("label/") && rest.endsWith("/values") && rest.length() > 13
                        ? "loki_label_values"
                        : null;
        };
    }

    public Answer handle(Call call, Bounds bounds) throws IOException {
        return switch (call.endpoint()) {
            case "loki_query_range" -> queryRange(call, bounds);
            case "loki_query" -> instant(call, bounds);
            case "loki_labels" -> labels.labels(call);
            case "loki_label_values" -> labels.labelValues(call, bounds);
            case "loki_series" -> labels.series(call, bounds);
            case "loki_index_stats" -> labels.indexStats(call, bounds);
            case "loki_index_volume" -> volume.volume(call, bounds);
            case "loki_index_volume_range" -> volume.volumeRange(call, bounds);
            default -> throw new AssertionError(call.endpoint());
        };
    }

    static LogQl.Query parse(Call call, String name) {
        String text = call.params().get(name);
        if (text == null || text.isBlank()) {
            throw Params.bad(name + ": required (a LogQL query)");
        }
        call.audit().put("query", text);
        try {
            return LogQlParser.parse(text);
        } catch (InvalidLogQl e) {
            throw new Refusal(400, "bad_query", name + ": " + e.getMessage());
        }
    }

    long nowNanos() {
        return env.clock().instant().toEpochMilli() * NANOS_PER_MILLI;
    }

    private Answer queryRange(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        Params p = call.params();
        LogQl.Query q = parse(call, "query");
        long end = LokiParams.nanos(p, "end", nowNanos());
        long start = LokiParams.nanos(p, "start", end - 3_600_000_000_000L);
        if (start > end) {
            throw Params.bad("start: must not be after end");
        }
        int limit = p.integer("limit", 100, 1, MAX_LIMIT); // checked for metric queries too, as Loki does
        boolean forward = LokiParams.forward(p);
        if (q instanceof LogQl.LogQuery lq) {
            return logs(call, bounds, lq, new LineAsk(start, end, limit, forward), started);
        }
        long startMs = Math.floorDiv(start, NANOS_PER_MILLI);
        long endMs = Math.floorDiv(end, NANOS_PER_MILLI);
        long fallback = Math.max(1000, ((endMs - startMs) / 250 + 999) / 1000 * 1000);
        long step = LokiParams.stepMillis(p, fallback);
        long count = (endMs - startMs) / step + 1;
        if (count > Steps.MAX) {
            throw Params.bad("exceeded maximum resolution of " + Steps.MAX
                    + " points per timeseries; try decreasing the query resolution (a larger step)");
        }
        return metric(call, bounds, (LogQl.Expr) q, new Steps(startMs, step, (int) count), false, started);
    }

    private Answer instant(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        LogQl.Query q = parse(call, "query");
        if (q instanceof LogQl.LogQuery) {
            throw new Refusal(
                    400,
                    "bad_query",
                    "log queries are not supported as an instant query type, please change your query to a range "
                            + "query type (/loki/api/v1/query_range)");
        }
        long time = LokiParams.nanos(call.params(), "time", nowNanos());
        return metric(
                call, bounds, (LogQl.Expr) q, new Steps(Math.floorDiv(time, NANOS_PER_MILLI), 1, 1), true, started);
    }

    private Answer metric(Call call, Bounds bounds, LogQl.Expr e, Steps steps, boolean instant, long started)
            throws IOException {
        MetricEval eval = new MetricEval(env, call, bounds, steps);
        Value v = eval.eval(e);
        ObjectNode root = envelope();
        ObjectNode data = root.putObject("data");
        ArrayNode result;
        if (instant && v instanceof Value.Scalar s) {
            data.put("resultType", "scalar");
            result = data.putArray("result");
            result.addRawValue(seconds(steps.at(0)));
            result.add(format(s.values()[0]));
        } else {
            Value.Vector vec = v instanceof Value.Vector x ? x : asVector((Value.Scalar) v);
            data.put("resultType", instant ? "vector" : "matrix");
            result = data.putArray("result");
            for (Map.Entry<SortedMap<String, String>, double[]> s : MetricEval.sorted(vec)) {
                double[] values = s.getValue();
                ObjectNode series = Answer.JSON_NODES.objectNode();
                ObjectNode metric = series.putObject("metric");
                s.getKey().forEach(metric::put);
                if (instant) {
                    if (Double.isNaN(values[0])) {
                        continue;
                    }
                    series.putArray("value").addRawValue(seconds(steps.at(0))).add(format(values[0]));
                } else {
                    ArrayNode points = series.putArray("values");
                    for (int k = 0; k < steps.count(); k++) {
                        if (!Double.isNaN(values[k])) {
                            points.addArray().addRawValue(seconds(steps.at(k))).add(format(values[k]));
                        }
                    }
                    if (points.isEmpty()) {
                        continue;
                    }
                }
                result.add(series);
            }
        }
        long lines = 0;
        long bytes = 0;
        List<String> warnings = new ArrayList<>();
        for (RecordScan.Result r : eval.scans()) {
            lines += r.records();
            bytes += r.bytes();
            warnings.addAll(describe(r, call));
        }
        stats(data, lines, bytes, started);
        warn(root, warnings);
        call.audit().put("hits", result.size());
        return Answer.ok(root.toString());
    }

    /**
     * Evaluates a metric expression at one time for an alert rule, through the same scan as {@code /query}: each
     * present series' labels and value (a scalar is one series without labels).
     */
    public Map<SortedMap<String, String>, Double> evaluate(Call call, Bounds bounds, LogQl.Expr e, long atMillis)
            throws IOException {
        MetricEval eval = new MetricEval(env, call, bounds, new Steps(atMillis, 1, 1));
        Value v = eval.eval(e);
        Value.Vector vec = v instanceof Value.Vector x ? x : asVector((Value.Scalar) v);
        Map<SortedMap<String, String>, Double> out = new LinkedHashMap<>();
        for (Map.Entry<SortedMap<String, String>, double[]> s : MetricEval.sorted(vec)) {
            if (!Double.isNaN(s.getValue()[0])) {
                out.put(s.getKey(), s.getValue()[0]);
            }
        }
        for (RecordScan.Result r : eval.scans()) {
            describe(r, call);
        }
        return out;
    }

    /**
     * Up to {@code n} of the newest lines of the first log query in {@code e} within {@code range} whose labels hold every entry of {@code labels} that the line has a label for: the lines
     * behind an alert's series, for its annotations. Same scan, budget and scope as a log query.
     */
    public List<String> sampleLines(
            Call call, Bounds bounds, LogQl.Expr e, Map<String, String> labels, TimeRange range, int n)
            throws IOException {
        LogQl.LogQuery q = LabelEndpoints.firstLogQuery(e);
        Pipeline pipeline = new Pipeline(q);
        List<String> out = new ArrayList<>();
        RecordScan.scan(
                env,
                call,
                bounds,
                new RecordScan.Ask(
                        Streams.engineQuery(call.params().get("query", ""), q),
                        range,
                        ShardSearcher.Order.NEWEST_FIRST,
                        n),
                (t, record, bytes) -> {
                    Pipeline.Line line = new Pipeline.Line(Streams.labels(record), record.message());
                    if (!pipeline.run(line)) {
                        return true;
                    }
                    for (Map.Entry<String, String> l : labels.entrySet()) {
                        String v = line.labels.get(l.getKey());
                        if (v != null && !v.equals(l.getValue())) {
                            return true;
                        }
                    }
                    out.add(line.text);
                    return out.size() < n;
                },
                () -> 0);
        return out;
    }

    private static Value.Vector asVector(Value.Scalar s) {
        Value.Vector v = new Value.Vector();
        v.series().put(new java.util.TreeMap<>(), s.values());
        return v;
    }

    /** The lines a log query asks for: within [{@code start}, {@code end}) nanoseconds, at most {@code limit}. */
    private record LineAsk(long start, long end, int limit, boolean forward) {}

    /** @param started when the request's work began ({@link System#nanoTime()}), for the answer's stats */
    private Answer logs(Call call, Bounds bounds, LogQl.LogQuery q, LineAsk ask, long started) throws IOException {
        long start = ask.start();
        long end = ask.end();
        int limit = ask.limit();
        boolean forward = ask.forward();
        Params p = call.params();
        Pipeline pipeline = new Pipeline(q);
        ParsedQuery engine = Streams.engineQuery(p.get("query"), q);
        TimeRange range = new TimeRange(
                Math.floorDiv(start, NANOS_PER_MILLI), Math.floorDiv(end + NANOS_PER_MILLI - 1, NANOS_PER_MILLI));
        Map<SortedMap<String, String>, ArrayNode> streams = new LinkedHashMap<>();
        long[] kept = {0, 0};
        RecordScan.Result r = RecordScan.scan(
                env,
                call,
                bounds,
                new RecordScan.Ask(
                        engine,
                        range,
                        forward ? ShardSearcher.Order.OLDEST_FIRST : ShardSearcher.Order.NEWEST_FIRST,
                        limit),
                (t, record, bytes) -> {
                    long ns = t * NANOS_PER_MILLI;
                    if (ns < start || ns >= end) {
                        return true;
                    }
                    Pipeline.Line line = new Pipeline.Line(Streams.labels(record), record.message());
                    if (!pipeline.run(line)) {
                        return true;
                    }
                    SortedMap<String, String> id = Streams.identity(line.labels);
                    ArrayNode values = streams.computeIfAbsent(id, k -> Answer.JSON_NODES.arrayNode());
                    values.addArray().add(Long.toString(ns)).add(line.text);
                    kept[0]++;
                    kept[1] += bytes;
                    return kept[0] < limit;
                },
                () -> kept[1]);
        if (r.timedOut() && kept[0] == 0) {
            throw Bounds.timedOut(env.config().limits().queryTimeout());
        }
        ObjectNode root = envelope();
        ObjectNode data = root.putObject("data");
        data.put("resultType", "streams");
        Streams.write(streams, data.putArray("result"));
        List<String> warnings = new ArrayList<>(describe(r, call));
        if (r.timedOut()) {
            warnings.add("the query did not finish within limits.query_timeout: the lines shown are the first found");
        }
        stats(data, r.records(), r.bytes(), started);
        warn(root, warnings);
        call.audit().put("hits", kept[0]);
        return Answer.ok(root.toString());
    }

    /** The partial reasons of a scan as warnings (Grafana shows them), counted and audited as the native API does. */
    List<String> describe(RecordScan.Result r, Call call) {
        ObjectNode scratch = Answer.JSON_NODES.objectNode();
        boolean partial =
                Scope.describe(scratch, r.plan(), r.outcomes(), r.plan().range(), env, call);
        List<String> out = new ArrayList<>();
        if (partial) {
            scratch.get("partial_reasons")
                    .forEach(x ->
                            out.add("partial answer: " + x.asText() + " (docs/query.md#budget-and-partial-answers)"));
        }
        return out;
    }

    private static void warn(ObjectNode root, List<String> warnings) {
        if (!warnings.isEmpty()) {
            ArrayNode w = root.putArray("warnings");
            new LinkedHashSet<>(warnings).forEach(w::add);
        }
    }

    private static void stats(ObjectNode data, long lines, long bytes, long started) {
        double seconds = Math.max(1e-9, (System.nanoTime() - started) / 1e9);
        ObjectNode s = data.putObject("stats").putObject("summary");
        s.put("totalLinesProcessed", lines);
        s.put("totalBytesProcessed", bytes);
        s.put("linesProcessedPerSecond", (long) (lines / seconds));
        s.put("bytesProcessedPerSecond", (long) (bytes / seconds));
        s.put("execTime", seconds);
    }

    static ObjectNode envelope() {
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("status", "success");
        return root;
    }

    /** A step's time as Prometheus writes it: Unix seconds with the milliseconds as a fraction. */
    static RawValue seconds(long millis) {
        return new RawValue(BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString());
    }

    /** A sample value as Loki writes it (Go's shortest form: "2", "0.5", "NaN", "+Inf"). */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
