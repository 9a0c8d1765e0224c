package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Loki's label and index endpoints: {@code labels} (from shard metadata), {@code label/{name}/values},
 * {@code series} and {@code index/stats}, through the same planner, budget and tenant scope as every query.
 */
final class LabelEndpoints {
    static final int MAX_DISTINCT = 10_000;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private final Env env;
    private final LokiEndpoints loki;

    LabelEndpoints(Env env, LokiEndpoints loki) {
        this.env = env;
        this.loki = loki;
    }

    private TimeRange labelRange(Params p) {
        long end = LokiParams.nanos(p, "end", loki.nowNanos());
        long start = LokiParams.nanos(p, "start", end - 6 * 3_600_000_000_000L);
        if (start > end) {
            throw Params.bad("start: must not be after end");
        }
        return new TimeRange(Math.floorDiv(start, NANOS_PER_MILLI), Math.floorDiv(end, NANOS_PER_MILLI) + 1);
    }

    private Plan plan(Call call, ParsedQuery q, TimeRange range) throws IOException {
        return env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        range,
                        call.policy().maxWindow().toMillis(),
                        q,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
    }

    /** Label names from the shards' metadata over the range (no shard opened): a superset, as Loki's index gives. */
    Answer labels(Call call) throws IOException {
        if (!call.pathRest().isEmpty() && !call.pathRest().equals("s")) {
            throw Params.bad("unknown path");
        }
        Plan plan = plan(call, ParsedQuery.ALL, labelRange(call.params()));
        SortedSet<String> names = new TreeSet<>();
        for (ShardMetadata m : metadata(plan)) {
            m.labels().forEach((k, vs) -> {
                if (!vs.isEmpty() && Streams.TOP_LABELS.contains(k)) {
                    names.add(k);
                }
            });
            m.fields().keySet().stream()
                    .filter(f -> !Fields.PIPELINE_FIELDS.contains(f))
                    .forEach(f -> names.add(Streams.fieldLabel(f)));
        }
        if (!plan.searched().isEmpty() || !plan.skipped().isEmpty()) {
            names.add(Fields.LEVEL); // every record has one (UNKNOWN when none was set)
        }
        return Answer.ok(list(names).toString());
    }

    private List<ShardMetadata> metadata(Plan plan) throws IOException {
        List<ShardId> all = new ArrayList<>(plan.searched());
        plan.skipped().forEach(s -> all.add(s.shard()));
        List<ShardMetadata> out = new ArrayList<>();
        for (ShardId id : all) {
            env.source().latestMetadata(id).ifPresent(out::add);
        }
        return out;
    }

    private static ObjectNode list(Set<String> values) {
        ObjectNode root = LokiEndpoints.envelope();
        ArrayNode data = root.putArray("data");
        values.forEach(data::add);
        return root;
    }

    Answer labelValues(Call call, Bounds bounds) throws IOException {
        String rest = call.pathRest(); // "/<name>/values"
        String name = rest.substring(1, rest.length() - "/values".length());
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw Params.bad("label name: must match [A-Za-z_][A-Za-z0-9_]*, was \"" + name + "\"");
        }
        Params p = call.params();
        TimeRange range = labelRange(p);
        List<LogQl.Matcher> selector = List.of();
        String text = p.get("query");
        if (text != null && !text.isBlank()) {
            LogQl.Query q = LokiEndpoints.parse(call, "query");
            if (!(q instanceof LogQl.LogQuery lq) || !lq.pipeline().isEmpty()) {
                throw Params.bad("query: must be a stream selector such as {service=\"api\"}");
            }
            selector = lq.selector();
        }
        SortedSet<String> values = new TreeSet<>();
        boolean counted = false;
        if (HistogramCounts.exact(selector)) {
            ParsedQuery q = Streams.engineQuery(text == null ? "" : text, selector);
            call.audit().put("query", q.text());
            Plan plan = plan(call, q, range);
            counted = engineValues(call, bounds, plan, name, range, values);
        }
        if (!counted) {
            values.clear();
            LogQl.LogQuery lq = new LogQl.LogQuery(selector, List.of());
            distinct(call, bounds, lq, range, labels -> {
                String v = labels.get(name);
                if (v != null && !v.isEmpty()) {
                    values.add(v);
                }
                return values.size() < MAX_DISTINCT;
            });
        }
        return Answer.ok(list(values).toString());
    }

    /**
     * The label's values from the index (no record read): a top-level label, or every structured field whose label
     * name it is. False when the index cannot tell them all (no such field in the metadata, a value that may be cut
     * at the keyword cap, more values than counted): the caller reads the records then.
     */
    private boolean engineValues(
            Call call, Bounds bounds, Plan plan, String name, TimeRange range, SortedSet<String> values)
            throws IOException {
        List<String> fields = new ArrayList<>();
        if (Streams.TOP_LABELS.contains(name)) {
            fields.add(name);
        } else if (name.startsWith("fields_")) {
            Set<String> names = new TreeSet<>();
            for (ShardMetadata m : metadata(plan)) {
                if (m.fieldsTruncated() || m.fieldsNotIndexed().records() > 0) {
                    return false; // some fields are in the records only
                }
                m.fields().keySet().stream()
                        .filter(f -> Streams.fieldLabel(f).equals(name))
                        .forEach(f -> names.add(Fields.keyword(f)));
            }
            fields.addAll(names);
        }
        if (fields.isEmpty()) {
            return false;
        }
        var sq = plan.shardQuery();
        for (String field : fields) {
            Map<ShardId, FanOut.Outcome<dev.logpipe.index.store.aggregate.Values>> results = env.fanOut()
                    .run(
                            plan.searched(),
                            env.config().limits().shardConcurrency(),
                            bounds.deadlineNanos(),
                            new ShardCall.ValuesOf(sq, field, MAX_DISTINCT));
            for (FanOut.Outcome<dev.logpipe.index.store.aggregate.Values> o : results.values()) {
                if (o.ok()) {
                    if (!o.value().complete() || o.value().overflow() > 0) {
                        return false;
                    }
                    for (String v : o.value().counts().keySet()) {
                        if (v.length() >= Fields.MAX_KEYWORD_CHARS) {
                            return false;
                        }
                        if (!v.isEmpty()) {
                            values.add(v);
                        }
                    }
                }
            }
            Scope.describe(Answer.JSON_NODES.objectNode(), plan, results, range, env, call);
        }
        return true;
    }

    /** Runs a selector over the records of the range, handing each match's labels to {@code sink} until it says stop. */
    private RecordScan.Result distinct(
            Call call,
            Bounds bounds,
            LogQl.LogQuery q,
            TimeRange range,
            java.util.function.Predicate<Map<String, String>> sink)
            throws IOException {
        Pipeline pipeline = new Pipeline(q);
        RecordScan.Result r = RecordScan.scan(
                env,
                call,
                bounds,
                new RecordScan.Ask(
                        Streams.engineQuery(call.params().get("query", ""), q),
                        range,
                        ShardSearcher.Order.NEWEST_FIRST),
                (t, record, bytes) -> {
                    Pipeline.Line line = new Pipeline.Line(Streams.labels(record), record.message());
                    return !pipeline.run(line) || sink.test(line.labels);
                },
                () -> 0);
        if (r.timedOut()) {
            throw Bounds.timedOut(env.config().limits().queryTimeout());
        }
        loki.describe(r, call);
        return r;
    }

    Answer series(Call call, Bounds bounds) throws IOException {
        Params p = call.params();
        List<String> matches = p.all().getOrDefault("match[]", p.all().getOrDefault("match", List.of()));
        if (matches.isEmpty()) {
            throw Params.bad("match[]: required (one or more stream selectors)");
        }
        TimeRange range = labelRange(p);
        Set<SortedMap<String, String>> found = new LinkedHashSet<>();
        for (String m : matches) {
            LogQl.Query q;
            try {
                q = LogQlParser.parse(m);
            } catch (InvalidLogQl e) {
                throw new Refusal(400, "bad_query", "match[]: " + e.getMessage());
            }
            if (!(q instanceof LogQl.LogQuery lq) || !lq.pipeline().isEmpty()) {
                throw Params.bad("match[]: must be a stream selector such as {service=\"api\"}");
            }
            call.audit().put("query", m);
            distinct(call, bounds, lq, range, labels -> {
                found.add(Streams.identity(labels));
                if (found.size() > MAX_DISTINCT) {
                    throw Params.bad("match[]: more than " + MAX_DISTINCT + " series; narrow the selector");
                }
                return true;
            });
        }
        ObjectNode root = LokiEndpoints.envelope();
        ArrayNode data = root.putArray("data");
        found.stream().sorted(java.util.Comparator.comparing(Object::toString)).forEach(labels -> {
            ObjectNode o = data.addObject();
            labels.forEach(o::put);
        });
        return Answer.ok(root.toString());
    }

    Answer indexStats(Call call, Bounds bounds) throws IOException {
        LogQl.Query q = LokiEndpoints.parse(call, "query");
        LogQl.LogQuery lq = q instanceof LogQl.LogQuery l ? l : firstLogQuery((LogQl.Expr) q);
        // Loki's stats count what the selector matches (a pipeline's filters are applied later, at query time)
        LogQl.LogQuery selector = new LogQl.LogQuery(lq.selector(), List.of());
        Params p = call.params();
        long end = LokiParams.nanos(p, "end", loki.nowNanos());
        long start = LokiParams.nanos(p, "start", end - 3_600_000_000_000L);
        TimeRange range = new TimeRange(
                Math.floorDiv(start, NANOS_PER_MILLI),
                Math.max(Math.floorDiv(start, NANOS_PER_MILLI), Math.floorDiv(end, NANOS_PER_MILLI)));
        Set<SortedMap<String, String>> streams = new LinkedHashSet<>();
        long[] totals = {0, 0};
        RecordScan.Result r = distinct(call, bounds, selector, range, labels -> {
            if (streams.size() < MAX_DISTINCT) {
                streams.add(Streams.identity(labels));
            }
            return true;
        });
        totals[0] = r.records();
        totals[1] = r.bytes();
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("streams", streams.size());
        root.put("chunks", r.outcomes().size());
        root.put("entries", totals[0]);
        root.put("bytes", totals[1]);
        return Answer.ok(root.toString());
    }

    static LogQl.LogQuery firstLogQuery(LogQl.Expr e) {
        if (e instanceof LogQl.RangeAgg r) {
            return r.query();
        }
        if (e instanceof LogQl.VectorAgg v) {
            return firstLogQuery(v.inner());
        }
        if (e instanceof LogQl.Binary b) {
            try {
                return firstLogQuery(b.left());
            } catch (Refusal x) {
                return firstLogQuery(b.right());
            }
        }
        if (e instanceof LogQl.Negate n) {
            return firstLogQuery(n.inner());
        }
        throw Params.bad("query: has no stream selector");
    }
}
