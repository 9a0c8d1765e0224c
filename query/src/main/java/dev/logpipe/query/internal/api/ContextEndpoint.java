package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.SearchPage;
import dev.logpipe.index.store.ShardQuery;
import dev.logpipe.index.store.ShardSearcher;
import dev.logpipe.query.internal.http.Answer;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.search.Merge;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
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
    private static final long DAY = 86_400_000L;
    private final Env env;

    public ContextEndpoint(Env env) {
        this.env = env;
    }

    public Answer handle(Call call) throws IOException {
        long started = System.nanoTime();
        String id = URLDecoder.decode(call.pathRest().substring(1), StandardCharsets.UTF_8);
        Params p = call.params();
        int before = p.integer("before", 10, 0, 500);
        int after = p.integer("after", 10, 0, 500);
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
                        "",
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
        ShardQuery byId = ShardQuery.of(call.tenant(), "", whole.fromMillis(), whole.toMillis())
                .with(new ShardQuery.Exact(Fields.RECORD_ID, id));
        Map<ShardId, FanOut.Outcome<ShardSearcher.Page>> found = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        deadline(),
                        (s, d) -> s.search(byId, ShardSearcher.Order.NEWEST_FIRST, null, 1, d));
        SearchPage.Hit anchor = null;
        for (FanOut.Outcome<ShardSearcher.Page> o : found.values()) {
            if (o.ok() && !o.value().hits().isEmpty()) {
                anchor = o.value().hits().get(0);
                break;
            }
        }
        if (anchor == null) {
            throw new Answer.Refusal(404, "not_found", "no record with this record_id in the tenant's window");
        }
        LogRecord rec;
        try {
            rec = new RecordCodec().decode(anchor.source().getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IOException("stored record " + id + " does not decode: " + e, e);
        }
        long t = anchor.eventTime().toEpochMilli();
        TimeRange near = new TimeRange(Math.max(whole.fromMillis(), t - DAY), Math.min(whole.toMillis(), t + DAY + 1));
        Plan nearPlan = env.planner()
                .plan(call.tenant(), ShardKind.RECORDS, near, 3 * DAY, "", ShardSearcher.Order.NEWEST_FIRST, null);
        Object path = rec.fields().get(PATH);
        Object offset = rec.fields().get(OFFSET);
        ShardQuery base = ShardQuery.of(call.tenant(), "", near.fromMillis(), near.toMillis());
        if (rec.instanceId() != null) {
            base = base.with(new ShardQuery.Exact(Fields.INSTANCE_ID, rec.instanceId()));
        }
        List<SearchPage.Hit> older;
        List<SearchPage.Hit> newer;
        String orderedBy;
        if (path instanceof String file && offset instanceof Number off) {
            orderedBy = OFFSET;
            ShardQuery same = base.with(new ShardQuery.Exact(Fields.FIELDS_PREFIX + PATH, file));
            long o = off.longValue();
            older = byOffset(
                    nearPlan, same.with(new ShardQuery.LongRange(OFFSET, Long.MIN_VALUE, o - 1)), false, before);
            newer = byOffset(nearPlan, same.with(new ShardQuery.LongRange(OFFSET, o + 1, Long.MAX_VALUE)), true, after);
        } else {
            orderedBy = Fields.EVENT_TIME;
            SearchPage.After key = new SearchPage.After(t, anchor.recordId());
            older = byTime(nearPlan, base, ShardSearcher.Order.NEWEST_FIRST, key, before);
            newer = byTime(nearPlan, base, ShardSearcher.Order.OLDEST_FIRST, key, after);
        }
        Collections.reverse(older);
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("ordered_by", orderedBy);
        root.putRawValue("record", new RawValue(anchor.source()));
        add(root.putArray("before"), older);
        add(root.putArray("after"), newer);
        root.put("took_ms", (System.nanoTime() - started) / 1_000_000);
        call.audit().put("hits", older.size() + newer.size() + 1);
        return Answer.ok(root.toString());
    }

    private static void add(ArrayNode a, List<SearchPage.Hit> hits) {
        hits.forEach(h -> a.addRawValue(new RawValue(h.source())));
    }

    private long deadline() {
        return System.nanoTime() + env.config().limits().queryTimeout().toNanos();
    }

    private List<SearchPage.Hit> byTime(
            Plan plan, ShardQuery q, ShardSearcher.Order order, SearchPage.After key, int n) {
        if (n == 0) {
            return new ArrayList<>();
        }
        Map<ShardId, FanOut.Outcome<ShardSearcher.Page>> r = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        deadline(),
                        (s, d) -> s.search(q, order, key, n, d));
        List<List<SearchPage.Hit>> pages = new ArrayList<>();
        r.values().forEach(o -> {
            if (o.ok()) {
                pages.add(o.value().hits());
            }
        });
        return new ArrayList<>(Merge.merge(pages, order, n));
    }

    private List<SearchPage.Hit> byOffset(Plan plan, ShardQuery q, boolean ascending, int n) {
        if (n == 0) {
            return new ArrayList<>();
        }
        Map<ShardId, FanOut.Outcome<List<SearchPage.Hit>>> r = env.fanOut()
                .run(
                        plan.searched(),
                        env.config().limits().shardConcurrency(),
                        deadline(),
                        (s, d) -> s.byLong(q, OFFSET, ascending, n, d));
        List<SearchPage.Hit> all = new ArrayList<>();
        Map<SearchPage.Hit, Long> offsets = new IdentityHashMap<>();
        for (FanOut.Outcome<List<SearchPage.Hit>> o : r.values()) {
            if (o.ok()) {
                all.addAll(o.value());
            }
        }
        RecordCodec codec = new RecordCodec();
        for (SearchPage.Hit h : all) {
            try {
                Object off = codec.decode(h.source().getBytes(StandardCharsets.UTF_8))
                        .fields()
                        .get(OFFSET);
                offsets.put(h, off instanceof Number x ? x.longValue() : 0L);
            } catch (Exception e) {
                offsets.put(h, 0L);
            }
        }
        Comparator<SearchPage.Hit> c = Comparator.comparingLong(offsets::get);
        all.sort(ascending ? c : c.reversed());
        return new ArrayList<>(all.subList(0, Math.min(n, all.size())));
    }
}
