package dev.logpipe.query.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.SearchPage;
import dev.logpipe.index.store.ShardQuery;
import dev.logpipe.index.store.ShardSearcher;
import dev.logpipe.query.http.Answer;
import dev.logpipe.query.http.Params;
import dev.logpipe.query.plan.Cursor;
import dev.logpipe.query.plan.Plan;
import dev.logpipe.query.plan.TimeRange;
import dev.logpipe.query.search.FanOut;
import dev.logpipe.query.search.Merge;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/search} and {@code GET /api/v1/dead-letters}: plan, search each planned shard for a page after
 * the cursor, k-way merge on (event_time, record_id), sign the next cursor (docs/query.md#search).
 */
public final class SearchEndpoint {
    private final Env env;
    private final ShardKind kind;

    public SearchEndpoint(Env env, ShardKind kind) {
        this.env = env;
        this.kind = kind;
    }

    public Answer handle(Call call) throws IOException {
        long started = System.nanoTime();
        Params p = call.params();
        String q = Scope.query(p);
        ShardSearcher.Order order = switch (p.get("order", "desc")) {
            case "desc" -> ShardSearcher.Order.NEWEST_FIRST;
            case "asc" -> ShardSearcher.Order.OLDEST_FIRST;
            default -> throw Params.bad("order: must be desc or asc, was \"" + p.get("order") + "\"");
        };
        int limit = p.integer("limit", 100, 1, env.config().limits().maxLimit());
        Instant now = env.clock().instant();
        Cursor.Binding binding =
                new Cursor.Binding(call.endpoint(), call.tenant(), q, p.get("from"), p.get("to"), order);
        TimeRange requested;
        SearchPage.After after = null;
        String cursorText = p.get("cursor");
        if (cursorText != null && !cursorText.isEmpty()) {
            Cursor c;
            try {
                c = env.cursors().decode(cursorText, binding);
            } catch (IllegalArgumentException e) {
                throw new Answer.Refusal(400, "bad_cursor", e.getMessage());
            }
            requested = c.range();
            after = c.after();
        } else {
            requested = Scope.range(p, now);
        }
        call.audit().put("query", q);
        Plan plan = env.planner()
                .plan(call.tenant(), kind, requested, call.policy().maxWindow().toMillis(), q, order, after);
        ShardQuery sq = ShardQuery.of(
                call.tenant(), q, plan.range().fromMillis(), plan.range().toMillis());
        SearchPage.After from = after;
        long deadline = System.nanoTime() + env.config().limits().queryTimeout().toNanos();
        Map<ShardId, FanOut.Outcome<ShardSearcher.Page>> results = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        deadline,
                        (s, d) -> s.search(sq, order, from, limit, d));
        List<List<SearchPage.Hit>> pages = new ArrayList<>();
        long total = 0;
        boolean exact = true;
        for (FanOut.Outcome<ShardSearcher.Page> o : results.values()) {
            if (o.ok()) {
                pages.add(o.value().hits());
                total += o.value().total();
                exact &= o.value().totalExact();
            }
        }
        List<SearchPage.Hit> hits = Merge.merge(pages, order, limit);
        ObjectNode root = Answer.JSON_NODES.objectNode();
        ArrayNode h = root.putArray("hits");
        for (SearchPage.Hit hit : hits) {
            h.addRawValue(new RawValue(hit.source()));
        }
        SearchPage.After next = null;
        if (hits.size() == limit) {
            SearchPage.Hit last = hits.get(hits.size() - 1);
            next = new SearchPage.After(last.eventTime().toEpochMilli(), last.recordId());
        } else if (plan.resumeAfter() != null) {
            next = plan.resumeAfter();
        }
        if (next != null) {
            root.put("next_cursor", env.cursors().encode(new Cursor(plan.range(), order, next), binding));
        }
        boolean partial = Scope.describe(root, plan, results, requested, env, call);
        ObjectNode t = root.putObject("total");
        t.put("value", total);
        t.put("relation", exact && !partial ? "eq" : "gte");
        root.put("scanned", plan.plannedDocs());
        root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
        call.audit().put("hits", hits.size());
        return Answer.ok(root.toString());
    }
}
