package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Loki's {@code index/volume} and {@code index/volume_range}: the bytes of the lines a stream selector matches over
 * {@code start..end} (per step for the range), summed per
 * series of the {@code targetLabels} (default: the labels the selector names), largest first, at most {@code limit}
 * (default 100); {@code aggregateBy=labels} gives one entry per label value instead. Answered as an instant vector at
 * {@code end}, as Loki does, through the same planner, budget and tenant scope as every query.
 */
final class VolumeEndpoint {
    static final int MAX_SERIES = 10_000;
    /** Series times steps one answer holds at most (8 bytes each while it is summed). */
    static final long MAX_POINTS = 2_000_000;

    private static final long NANOS_PER_MILLI = 1_000_000L;
    private final Env env;
    private final LokiEndpoints loki;

    VolumeEndpoint(Env env, LokiEndpoints loki) {
        this.env = env;
        this.loki = loki;
    }

    Answer volume(Call call, Bounds bounds) throws IOException {
        return answer(call, bounds, false);
    }

    /**
     * Loki's {@code index/volume_range}: the same sums per step of {@code step} (default as {@code query_range}'s), a
     * line counted at the first step {@code T} with its time in {@code (T - step, T]}; a matrix of the non-zero points.
     */
    Answer volumeRange(Call call, Bounds bounds) throws IOException {
        return answer(call, bounds, true);
    }

    private Answer answer(Call call, Bounds bounds, boolean overTime) throws IOException {
        LogQl.Query q = LokiEndpoints.parse(call, "query");
        if (!(q instanceof LogQl.LogQuery lq) || !lq.pipeline().isEmpty()) {
            throw Params.bad("query: must be a stream selector such as {service=\"api\"}");
        }
        Params p = call.params();
        long end = LokiParams.nanos(p, "end", loki.nowNanos());
        long start = LokiParams.nanos(p, "start", end - 3_600_000_000_000L);
        if (start > end) {
            throw Params.bad("start: must not be after end");
        }
        int limit = limit(p.get("limit"));
        boolean byLabel = aggregateByLabels(p.get("aggregateBy"));
        Set<String> targets = targets(p.get("targetLabels"), lq);
        long startMs = Math.floorDiv(start, NANOS_PER_MILLI);
        long endMs = Math.floorDiv(end, NANOS_PER_MILLI);
        Steps steps = overTime ? steps(p, startMs, endMs) : new Steps(endMs, 1, 1);
        long from = overTime ? startMs - steps.stepMillis() + 1 : startMs; // the first step's window starts here
        TimeRange range = new TimeRange(from, endMs + 1);
        Map<SortedMap<String, String>, long[]> volumes = new HashMap<>();
        Pipeline pipeline = new Pipeline(lq);
        RecordScan.Result r = RecordScan.scan(
                env,
                call,
                bounds,
                new RecordScan.Ask(
                        Streams.engineQuery(p.get("query", ""), lq), range, ShardSearcher.Order.NEWEST_FIRST),
                (t, record, bytes) -> {
                    Pipeline.Line line = new Pipeline.Line(Streams.labels(record), record.message());
                    if (!pipeline.run(line)) {
                        return true;
                    }
                    int step = overTime ? steps.first(t) : 0;
                    if (step >= steps.count()) {
                        return true;
                    }
                    SortedMap<String, String> identity = Streams.identity(line.labels);
                    // a line's bytes, as index/stats counts them (the message, not the stored record)
                    long lineBytes = record.message().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                    for (SortedMap<String, String> key : keys(identity, targets, byLabel)) {
                        long[] sums = volumes.get(key);
                        if (sums == null) {
                            if ((long) (volumes.size() + 1) * steps.count() > MAX_POINTS) {
                                throw Params.bad("query: more than " + MAX_POINTS + " points (series times steps);"
                                        + " narrow the selector or the targetLabels, or take a larger step");
                            }
                            sums = new long[steps.count() + 1]; // the last slot: the series' total, for the order
                            volumes.put(key, sums);
                        }
                        sums[step] += lineBytes;
                        sums[steps.count()] += lineBytes;
                    }
                    return true;
                },
                () -> 0);
        if (r.timedOut()) {
            throw Bounds.timedOut(env.config().limits().queryTimeout());
        }
        loki.describe(r, call);
        ObjectNode root = LokiEndpoints.envelope();
        ObjectNode data = root.putObject("data");
        data.put("resultType", overTime ? "matrix" : "vector");
        ArrayNode result = data.putArray("result");
        int total = steps.count();
        volumes.entrySet().stream()
                .sorted((a, b) -> a.getValue()[total] != b.getValue()[total]
                        ? Long.compare(b.getValue()[total], a.getValue()[total])
                        : a.getKey().toString().compareTo(b.getKey().toString()))
                .limit(limit)
                .forEach(e -> {
                    ObjectNode o = result.addObject();
                    ObjectNode metric = o.putObject("metric");
                    e.getKey().forEach(metric::put);
                    if (!overTime) {
                        ArrayNode value = o.putArray("value");
                        value.add(Math.floorDiv(endMs, 1000L));
                        value.add(Long.toString(e.getValue()[0]));
                        return;
                    }
                    ArrayNode values = o.putArray("values");
                    for (int i = 0; i < total; i++) {
                        if (e.getValue()[i] > 0) {
                            ArrayNode point = values.addArray();
                            point.addRawValue(LokiEndpoints.seconds(steps.at(i)));
                            point.add(Long.toString(e.getValue()[i]));
                        }
                    }
                });
        return Answer.ok(root.toString());
    }

    /** The steps of a range request: {@code step} as {@code query_range} reads it, at most {@link Steps#MAX}. */
    private static Steps steps(Params p, long startMs, long endMs) {
        long fallback = Math.max(1000, ((endMs - startMs) / 250 + 999) / 1000 * 1000);
        long step = LokiParams.stepMillis(p, fallback);
        long count = (endMs - startMs) / step + 1;
        if (count > Steps.MAX) {
            throw Params.bad("exceeded maximum resolution of " + Steps.MAX
                    + " points per timeseries; try decreasing the query resolution (a larger step)");
        }
        return new Steps(startMs, step, (int) count);
    }

    private static List<SortedMap<String, String>> keys(
            SortedMap<String, String> identity, Set<String> targets, boolean byLabel) {
        if (byLabel) {
            return targets.stream()
                    .filter(identity::containsKey)
                    .map(k -> (SortedMap<String, String>) new TreeMap<>(Map.of(k, identity.get(k))))
                    .toList();
        }
        SortedMap<String, String> key = new TreeMap<>();
        targets.forEach(k -> {
            String v = identity.get(k);
            if (v != null) {
                key.put(k, v);
            }
        });
        return List.of(key);
    }

    private static Set<String> targets(String text, LogQl.LogQuery q) {
        Set<String> out = new LinkedHashSet<>();
        if (text != null && !text.isBlank()) {
            for (String t : text.split(",")) {
                String name = t.strip();
                if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw Params.bad("targetLabels: each must match [A-Za-z_][A-Za-z0-9_]*, was \"" + name + "\"");
                }
                out.add(name);
            }
        } else {
            q.selector().forEach(m -> out.add(m.name()));
        }
        return out;
    }

    private static boolean aggregateByLabels(String text) {
        if (text == null || text.isBlank() || text.equals("series")) {
            return false;
        }
        if (text.equals("labels")) {
            return true;
        }
        throw Params.bad("aggregateBy: must be series or labels, was \"" + text + "\"");
    }

    private static int limit(String text) {
        if (text == null || text.isBlank()) {
            return 100;
        }
        try {
            int n = Integer.parseInt(text.strip());
            if (n >= 1 && n <= MAX_SERIES) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw Params.bad("limit: must be 1.." + MAX_SERIES + ", was \"" + text + "\"");
    }
}
