package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.role.http.Answer;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reading {@code q}, {@code from}, {@code to} the same way for every endpoint, and writing the plan's part of an answer. */
public final class Scope {
    public static final int MAX_QUERY_CHARS = 4096;
    static final String DEFAULT_FROM = "now-1h";
    static final String DEFAULT_TO = "now";

    private Scope() {}

    /** {@code q}, parsed once: a query that does not parse is a 400 with the parser's message and position. */
    public static ParsedQuery query(Params p) {
        String q = p.get("q", "");
        if (q.length() > MAX_QUERY_CHARS) {
            throw Params.bad("q: is longer than " + MAX_QUERY_CHARS + " characters");
        }
        try {
            return ParsedQuery.parse(q);
        } catch (InvalidQuery e) {
            throw refusal(e.problem());
        }
    }

    /** A query the query language refused, as the 400 users have always had: {@code bad_query} with the position. */
    public static Refusal refusal(InvalidQuery.Problem problem) {
        ObjectNode extra = Answer.JSON_NODES.objectNode();
        ObjectNode pos = extra.putObject("position");
        if (problem.column() != null) {
            pos.put("line", problem.line());
            pos.put("column", problem.column());
        } else {
            extra.remove("position");
        }
        return new Refusal(400, "bad_query", "q: " + problem.message(), extra);
    }

    /** The requested [from, to) resolved against now (RFC 3339 or relative). */
    /** The {@code order} parameter: {@code desc} (newest first, the default) or {@code asc}. */
    public static ShardSearcher.Order order(Params p) {
        return switch (p.get("order", "desc")) {
            case "desc" -> ShardSearcher.Order.NEWEST_FIRST;
            case "asc" -> ShardSearcher.Order.OLDEST_FIRST;
            default -> throw Params.bad("order: must be desc or asc, was \"" + p.get("order") + "\"");
        };
    }

    public static TimeRange range(Params p, Instant now) {
        Instant from = parse("from", p.get("from", DEFAULT_FROM), now);
        Instant to = parse("to", p.get("to", DEFAULT_TO), now);
        if (from.isAfter(to)) {
            throw Params.bad("from: must not be after to (" + from + " > " + to + ")");
        }
        return new TimeRange(from.toEpochMilli(), to.toEpochMilli());
    }

    private static Instant parse(String name, String v, Instant now) {
        try {
            return TimeRange.parse(name, v, now);
        } catch (IllegalArgumentException | ArithmeticException | DateTimeException e) {
            throw Params.bad(e.getMessage() == null ? name + ": not a time" : e.getMessage());
        }
    }

    /**
     * Writes {@code range}, {@code partial}, {@code partial_reasons} and {@code shards} for a plan and the shards'
     * outcomes, and counts the partial reasons. Returns whether the answer is partial.
     */
    public static boolean describe(
            ObjectNode root,
            Plan plan,
            Map<ShardId, ? extends FanOut.Outcome<?>> results,
            TimeRange requested,
            Env env,
            Call call) {
        ObjectNode r = root.putObject("range");
        r.put("from", Instant.ofEpochMilli(plan.range().fromMillis()).toString());
        r.put("to", Instant.ofEpochMilli(plan.range().toMillis()).toString());
        Set<String> reasons = new LinkedHashSet<>();
        if (plan.clamped()) {
            r.put("clamped", true);
            r.put("requested_from", Instant.ofEpochMilli(requested.fromMillis()).toString());
            r.put("max_window_seconds", plan.maxWindowMillis() / 1000);
            reasons.add("max_window");
        }
        ObjectNode s = root.putObject("shards");
        s.put("planned", plan.planned());
        s.put("pruned", plan.pruned());
        ArrayNode skipped = s.putArray("skipped");
        for (Plan.Skipped k : plan.skipped()) {
            skipped.addObject().put("day", k.shard().day().toString()).put("reason", k.reason());
            reasons.add(k.reason());
        }
        int searched = 0;
        int failed = 0;
        for (Map.Entry<ShardId, ? extends FanOut.Outcome<?>> e : results.entrySet()) {
            if (e.getValue().ok()) {
                searched++;
            } else if (!e.getValue().failure().equals("gone")) {
                failed++;
                ObjectNode k = skipped.addObject()
                        .put("day", e.getKey().day().toString())
                        .put("reason", e.getValue().failure());
                if (e.getValue().detail() != null) {
                    k.put("detail", e.getValue().detail()); // what is corrupt, by name (never the data)
                }
                reasons.add(e.getValue().failure());
            }
        }
        s.put("searched", searched);
        int notNeeded = Math.max(0, plan.searched().size() - results.size());
        s.put("not_needed", notNeeded);
        boolean partial = !reasons.isEmpty();
        root.put("partial", partial);
        ArrayNode pr = root.putArray("partial_reasons");
        reasons.forEach(pr::add);
        reasons.forEach(env.metrics()::partial);
        env.metrics()
                .shards(call.endpoint(), searched, plan.pruned(), plan.skipped().size(), failed);
        ObjectNode a = call.audit();
        a.put("from", r.get("from").asText());
        a.put("to", r.get("to").asText());
        a.put("shards_planned", plan.planned());
        a.put("shards_searched", searched);
        a.put("shards_skipped", plan.skipped().size() + failed);
        a.put("shards_not_needed", notNeeded);
        a.put("partial", partial);
        return partial;
    }

    static List<ShardId> ok(Map<ShardId, ? extends FanOut.Outcome<?>> results) {
        return results.entrySet().stream()
                .filter(e -> e.getValue().ok())
                .map(Map.Entry::getKey)
                .toList();
    }
}
