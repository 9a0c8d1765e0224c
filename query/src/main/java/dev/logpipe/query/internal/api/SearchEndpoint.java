package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.plan.Cursor;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.search.KeyMerge;
import dev.logpipe.query.internal.search.Pages;
import dev.logpipe.query.internal.search.SourceReader;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/search} and {@code GET /api/v1/dead-letters}: plan, search the planned shards in merge order for
 * the keys of a page after the cursor (stopping once no further shard can contribute), k-way merge on (event_time,
 * record_id), load only the winners' sources, sign the next cursor (docs/query.md#search).
 */
public final class SearchEndpoint {
    private final Env env;
    private final ShardKind kind;

    public SearchEndpoint(Env env, ShardKind kind) {
        this.env = env;
        this.kind = kind;
    }

    public Answer handle(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        Params p = call.params();
        ParsedQuery q = Scope.query(p);
        ShardSearcher.Order order = Scope.order(p);
        int limit = p.integer("limit", 100, 1, env.config().limits().maxLimit());
        Instant now = env.clock().instant();
        Cursor.Binding binding =
                new Cursor.Binding(call.endpoint(), call.tenant(), q.text(), p.get("from"), p.get("to"), order);
        TimeRange requested;
        After after = null;
        String cursorText = p.get("cursor");
        if (cursorText != null && !cursorText.isEmpty()) {
            Cursor c;
            try {
                c = env.cursors().decode(cursorText, binding);
            } catch (IllegalArgumentException e) {
                throw new Refusal(400, "bad_cursor", e.getMessage());
            }
            requested = c.range();
            after = c.after();
        } else {
            requested = Scope.range(p, now);
        }
        call.audit().put("query", q.text());
        Plan plan = env.planner()
                .plan(call.tenant(), kind, requested, call.policy().maxWindow().toMillis(), q, order, after);
        ShardQuery sq = plan.shardQuery();
        long deadline = bounds.deadlineNanos();
        long maxBytes = env.config().limits().maxAnswerBytes();
        Pages pages = new Pages(env.fanOut(), plan, env.config().limits().shardConcurrency(), deadline);
        SourceReader.Read read;
        try {
            long budget = env.config().limits().exactTotalBudget().toNanos();
            // a remote engine counts the shards the page may not need along with its first keys, in one round trip
            if (budget > 0) { // a partial answer's too: its lower bound then covers every shard within the budget
                long countDeadline = Math.min(deadline, System.nanoTime() + budget);
                pages.collectCountingAlong(sq, after, limit, countDeadline);
                // counting began with the first trip when it counted along: one budget in all, not one more
                pages.countExactly(
                        sq, pages.countedAlong() ? countDeadline : Math.min(deadline, System.nanoTime() + budget));
            } else {
                pages.collect(sq, after, limit);
            }
            read = pages.sources(maxBytes, deadline, bounds.memory()); // reserved as the sources are read
        } finally {
            pages.close();
        }
        List<KeyMerge.Pick> winners = pages.winners();
        String[] sources = read.sources();
        if (sources.length == 0 && !winners.isEmpty()) {
            throw Bounds.timedOut(env.config().limits().queryTimeout());
        }
        ObjectNode root = Answer.JSON_NODES.objectNode();
        ArrayNode h = root.putArray("hits");
        for (String source : sources) {
            h.addRawValue(new RawValue(source));
        }
        After next = null;
        if (sources.length < winners.size()) { // cut: the next page starts after the last hit shown
            ShardSearcher.Key last = winners.get(sources.length - 1).key();
            next = new After(last.eventTimeMillis(), last.recordId().text());
            Bounds.describeCut(root, read.cut(), winners.size() - sources.length, 0, env, call);
        } else if (winners.size() == limit) {
            ShardSearcher.Key last = winners.get(winners.size() - 1).key();
            next = new After(last.eventTimeMillis(), last.recordId().text());
        } else if (plan.resumeAfter() != null) {
            next = plan.resumeAfter();
        }
        if (next != null) {
            root.put("next_cursor", env.cursors().encode(new Cursor(plan.range(), order, next), binding));
        }
        Map<ShardId, FanOut.Outcome<?>> results = pages.outcomes();
        boolean partial = Scope.describe(root, plan, results, requested, env, call);
        ObjectNode t = root.putObject("total");
        t.put("value", pages.total());
        t.put("relation", pages.totalExact() && !partial ? "eq" : "gte");
        root.put("scanned", pages.scannedDocs());
        QueryNotes.describe(root, q, plan, env);
        root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
        call.audit().put("hits", sources.length);
        return Answer.ok(root.toString());
    }
}
