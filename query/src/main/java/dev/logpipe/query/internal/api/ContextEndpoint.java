package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.search.KeyMerge;
import dev.logpipe.query.internal.search.SourceReader;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/context/{record_id}?before=&after=}: the records around one record from the same source, in
 * source order. With the forwarder's {@code log.file.path} and {@code log.offset} fields: the same file (and
 * instance), ordered by offset; otherwise the same instance ordered by (event_time, record_id). Looked for within a
 * day either side of the record, inside the tenant's window.
 */
public final class ContextEndpoint {
    static final String PATH = "log.file.path";
    static final String OFFSET = "log.offset";
    /** The most records asked for on either side. */
    static final int MAX_SIDE = 500;

    private static final long DAY = 86_400_000L;
    private final Env env;

    public ContextEndpoint(Env env) {
        this.env = env;
    }

    public Answer handle(Call call, Bounds bounds) throws IOException {
        long started = System.nanoTime();
        String id = URLDecoder.decode(call.pathRest().substring(1), StandardCharsets.UTF_8);
        Params p = call.params();
        int before = p.integer("before", 10, 0, MAX_SIDE);
        int after = p.integer("after", 10, 0, MAX_SIDE);
        long now = env.clock().millis();
        long window = call.policy().maxWindow().toMillis();
        TimeRange whole = new TimeRange(now - window, now + DAY);
        call.audit().put("record_id", id);
        Plan plan = env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        whole,
                        window + DAY,
                        ParsedQuery.ALL,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
        ShardQuery byId = ShardQuery.of(call.tenant(), ParsedQuery.ALL, whole.fromMillis(), whole.toMillis())
                .with(new ShardQuery.Exact(Fields.RECORD_ID, id));
        Map<ShardId, FanOut.Outcome<ShardSearcher.Page>> found = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        (s, d) -> s.search(byId, ShardSearcher.Order.NEWEST_FIRST, null, 1, d));
        Hit anchor = null;
        for (FanOut.Outcome<ShardSearcher.Page> o : found.values()) {
            if (o.ok() && !o.value().hits().isEmpty()) {
                anchor = o.value().hits().get(0);
                break;
            }
        }
        if (anchor == null) {
            if (found.values().stream().anyMatch(o -> "timeout".equals(o.failure()))) {
                throw Bounds.timedOut(env.config().limits().queryTimeout());
            }
            throw new Refusal(404, "not_found", "no record with this record_id in the tenant's window");
        }
        long anchorBytes = anchor.source().length();
        bounds.memory().force(anchorBytes); // read already: the record asked for is always sent
        LogRecord rec;
        try {
            rec = new RecordCodec().decode(anchor.source().getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IOException("stored record " + id + " does not decode: " + e, e);
        }
        long t = anchor.eventTime().toEpochMilli();
        TimeRange near = new TimeRange(Math.max(whole.fromMillis(), t - DAY), Math.min(whole.toMillis(), t + DAY + 1));
        Plan nearPlan = env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        near,
                        3 * DAY,
                        ParsedQuery.ALL,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
        Object path = rec.fields().get(PATH);
        Object offset = rec.fields().get(OFFSET);
        ShardQuery base = ShardQuery.of(call.tenant(), ParsedQuery.ALL, near.fromMillis(), near.toMillis());
        if (rec.instanceId() != null) {
            base = base.with(new ShardQuery.Exact(Fields.INSTANCE_ID, rec.instanceId()));
        }
        List<FanOut.Held<?>> held = new ArrayList<>();
        Near around = new Near(nearPlan, bounds, held);
        try {
            List<SourceReader.Ref> older;
            List<SourceReader.Ref> newer;
            String orderedBy;
            if (path instanceof String file && offset instanceof Number off) {
                orderedBy = OFFSET;
                ShardQuery same = base.with(new ShardQuery.Exact(Fields.FIELDS_PREFIX + PATH, file));
                long o = off.longValue();
                older = o == Long.MIN_VALUE
                        ? new ArrayList<>()
                        : byOffset(
                                around,
                                same.with(new ShardQuery.LongRange(OFFSET, Long.MIN_VALUE, o - 1)),
                                false,
                                before);
                newer = o == Long.MAX_VALUE
                        ? new ArrayList<>()
                        : byOffset(
                                around,
                                same.with(new ShardQuery.LongRange(OFFSET, o + 1, Long.MAX_VALUE)),
                                true,
                                after);
            } else {
                orderedBy = Fields.EVENT_TIME;
                After key = new After(t, anchor.recordId());
                older = byTime(around, base, ShardSearcher.Order.NEWEST_FIRST, key, before);
                newer = byTime(around, base, ShardSearcher.Order.OLDEST_FIRST, key, after);
            }
            // nearest first, alternating sides: what does not fit in one answer is the farthest
            List<SourceReader.Ref> order = new ArrayList<>();
            List<Boolean> isOlder = new ArrayList<>();
            for (int i = 0; i < Math.max(older.size(), newer.size()); i++) {
                if (i < older.size()) {
                    order.add(older.get(i));
                    isOlder.add(true);
                }
                if (i < newer.size()) {
                    order.add(newer.get(i));
                    isOlder.add(false);
                }
            }
            long maxBytes = env.config().limits().maxAnswerBytes();
            long budget = Math.max(0, maxBytes - anchorBytes);
            SourceReader.Read read = new SourceReader.Read(new String[0], 0, null);
            if (!order.isEmpty() && budget > 0) { // reserved as the sources are read
                read = SourceReader.read(
                        env.fanOut(),
                        order,
                        env.config().limits().shardConcurrency(),
                        new SourceReader.Budget(budget, bounds.deadlineNanos(), bounds.memory()),
                        false);
            }
            List<String> olderSources = new ArrayList<>();
            List<String> newerSources = new ArrayList<>();
            for (int i = 0; i < read.sources().length; i++) {
                (isOlder.get(i) ? olderSources : newerSources).add(read.sources()[i]);
            }
            Collections.reverse(olderSources);
            ObjectNode root = Answer.JSON_NODES.objectNode();
            root.put("ordered_by", orderedBy);
            root.putRawValue("record", new RawValue(anchor.source()));
            ArrayNode b = root.putArray("before");
            olderSources.forEach(x -> b.addRawValue(new RawValue(x)));
            ArrayNode a = root.putArray("after");
            newerSources.forEach(x -> a.addRawValue(new RawValue(x)));
            if (read.sources().length < order.size()) {
                Bounds.describeCut(
                        root,
                        read.cut() == null ? SourceReader.Cut.MAX_ANSWER_BYTES : read.cut(),
                        older.size() - olderSources.size(),
                        newer.size() - newerSources.size(),
                        env,
                        call);
            }
            root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
            call.audit().put("hits", read.sources().length + 1);
            return Answer.ok(root.toString());
        } finally {
            for (FanOut.Held<?> h : held) {
                h.close();
            }
        }
    }

    /** The nearest {@code n} records by (event_time, record_id) after {@code key} in {@code order}, unread. */
    /**
     * The search around the anchor: the plan of the days near it, the request's bounds, and the searchers held open
     * until the sources are read (each search adds its own).
     */
    private record Near(Plan plan, Bounds bounds, List<FanOut.Held<?>> held) {}

    private List<SourceReader.Ref> byTime(Near near, ShardQuery q, ShardSearcher.Order order, After key, int n) {
        Plan plan = near.plan();
        Bounds bounds = near.bounds();
        List<FanOut.Held<?>> held = near.held();
        if (n == 0) {
            return new ArrayList<>();
        }
        Map<ShardId, FanOut.Outcome<FanOut.Held<ShardSearcher.Keys>>> r = env.fanOut()
                .runHeld(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        new ShardCall.KeysOf(q, order, key, n));
        List<List<ShardSearcher.Key>> pages = new ArrayList<>();
        List<ShardSearcher> searchers = new ArrayList<>();
        r.values().forEach(o -> {
            if (o.ok()) {
                held.add(o.value());
                pages.add(o.value().value().keys());
                searchers.add(o.value().searcher());
            }
        });
        List<SourceReader.Ref> out = new ArrayList<>();
        for (KeyMerge.Pick pick : KeyMerge.merge(pages, order, n)) {
            out.add(new SourceReader.Ref(searchers.get(pick.page()), pick.key().doc()));
        }
        return out;
    }

    /** The nearest {@code n} records of the file by offset ({@code ascending}: the following ones), unread. */
    private List<SourceReader.Ref> byOffset(Near near, ShardQuery q, boolean ascending, int n) {
        Plan plan = near.plan();
        Bounds bounds = near.bounds();
        List<FanOut.Held<?>> held = near.held();
        if (n == 0) {
            return new ArrayList<>();
        }
        Map<ShardId, FanOut.Outcome<FanOut.Held<List<ShardSearcher.LongKey>>>> r = env.fanOut()
                .runHeld(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        bounds.deadlineNanos(),
                        (s, d) -> s.longKeys(q, OFFSET, ascending, n, d));
        record Found(ShardSearcher searcher, ShardSearcher.LongKey key) {}
        List<Found> all = new ArrayList<>();
        for (FanOut.Outcome<FanOut.Held<List<ShardSearcher.LongKey>>> o : r.values()) {
            if (o.ok()) {
                held.add(o.value());
                o.value().value().forEach(k -> all.add(new Found(o.value().searcher(), k)));
            }
        }
        Comparator<Found> byValue = Comparator.comparingLong(f -> f.key().value());
        Comparator<ShardSearcher.Key> tie =
                KeyMerge.order(ascending ? ShardSearcher.Order.OLDEST_FIRST : ShardSearcher.Order.NEWEST_FIRST);
        all.sort((ascending ? byValue : byValue.reversed())
                .thenComparing(f -> f.key().key(), tie));
        List<SourceReader.Ref> out = new ArrayList<>();
        for (Found f : all.subList(0, Math.min(n, all.size()))) {
            out.add(new SourceReader.Ref(f.searcher(), f.key().key().doc()));
        }
        return out;
    }
}
