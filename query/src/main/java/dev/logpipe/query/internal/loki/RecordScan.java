package dev.logpipe.query.internal.loki;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.search.KeyMerge;
import dev.logpipe.query.internal.search.Pages;
import dev.logpipe.query.internal.search.SourceReader;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Visits the records a LogQL query's engine part matches, in merge order, through the native search's planner
 * (clamp, pruning, budget) and its two-phase pages (the tenant filter, the deadline, the answer memory), a page at a
 * time: memory holds one page of sources plus what the visitor keeps ({@code retained}), never the whole range. A
 * scan that wants a few records (a log query's {@code limit}) starts with a page of that many and grows the pages
 * fourfold up to {@link #PAGE}, so the newest 100 lines read about 100 sources, not 2,000.
 */
final class RecordScan {
    static final int PAGE = 2000;
    private static final RecordCodec CODEC = new RecordCodec();

    /** Sees each record; false stops the scan. */
    interface Visitor {
        boolean visit(long eventTimeMillis, LogRecord record, int bytes);
    }

    /** The plan, the outcome of every shard visited, and whether the deadline cut the scan short. */
    record Result(Plan plan, Map<ShardId, FanOut.Outcome<?>> outcomes, long records, long bytes, boolean timedOut) {}

    private RecordScan() {}

    /**
     * The records a scan reads: those {@code query} matches within {@code requested} (before the planner clamps it),
     * in {@code order}; the first page {@code firstPage} records (at most {@link #PAGE}), each next one four times
     * larger.
     */
    record Ask(ParsedQuery query, TimeRange requested, ShardSearcher.Order order, int firstPage) {
        /** Pages of {@link #PAGE} records from the first. */
        Ask(ParsedQuery query, TimeRange requested, ShardSearcher.Order order) {
            this(query, requested, order, PAGE);
        }
    }

    /**
     * Visits the records {@code ask} names within the call's plan and the bounds; {@code retained}: the bytes the
     * visitor keeps so far.
     */
    static Result scan(Env env, Call call, Bounds bounds, Ask ask, Visitor visitor, LongSupplier retained)
            throws IOException {
        ParsedQuery query = ask.query();
        TimeRange requested = ask.requested();
        ShardSearcher.Order order = ask.order();
        int page = Math.max(1, Math.min(PAGE, ask.firstPage()));
        Plan plan = env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        requested,
                        call.policy().maxWindow().toMillis(),
                        query,
                        order,
                        null);
        Map<ShardId, FanOut.Outcome<?>> outcomes = new LinkedHashMap<>();
        long from = plan.range().fromMillis();
        long to = plan.range().toMillis();
        After after = null;
        long records = 0;
        long bytes = 0;
        while (true) {
            if (bounds.expired()) {
                return new Result(plan, outcomes, records, bytes, true);
            }
            // narrowing the range to what is left lets each shard skip the part already visited
            ShardQuery sq = ShardQuery.of(call.tenant(), query, from, to);
            Pages pages =
                    new Pages(env.fanOut(), plan, env.config().limits().shardConcurrency(), bounds.deadlineNanos());
            List<KeyMerge.Pick> winners;
            SourceReader.Read read;
            try {
                pages.collect(sq, after, page);
                outcomes.putAll(pages.outcomes());
                winners = pages.winners();
                if (winners.isEmpty()) {
                    return new Result(plan, outcomes, records, bytes, false);
                }
                read = pages.sources(env.config().limits().maxAnswerBytes(), bounds.deadlineNanos(), bounds.memory());
            } finally {
                pages.close();
            }
            String[] sources = read.sources();
            if (sources.length == 0) {
                return new Result(plan, outcomes, records, bytes, true);
            }
            for (int i = 0; i < sources.length; i++) {
                ShardSearcher.Key k = winners.get(i).key();
                byte[] line = sources[i].getBytes(StandardCharsets.UTF_8);
                LogRecord r;
                try {
                    r = CODEC.decode(line);
                } catch (RecordFormatException | RuntimeException e) {
                    continue; // the indexer stored what the collector accepted: not reached in practice
                }
                records++;
                bytes += r.message().getBytes(StandardCharsets.UTF_8).length;
                if (!visitor.visit(k.eventTimeMillis(), r, line.length)) {
                    bounds.memory().keep(retained.getAsLong());
                    return new Result(plan, outcomes, records, bytes, false);
                }
            }
            bounds.memory().keep(retained.getAsLong());
            ShardSearcher.Key last = winners.get(sources.length - 1).key();
            after = new After(last.eventTimeMillis(), last.recordId().text());
            if (order == ShardSearcher.Order.NEWEST_FIRST) {
                to = Math.min(to, last.eventTimeMillis() + 1);
            } else {
                from = Math.max(from, last.eventTimeMillis());
            }
            if (sources.length < page && sources.length == winners.size()) {
                return new Result(plan, outcomes, records, bytes, false);
            }
            page = Math.min(PAGE, page * 4);
        }
    }
}
