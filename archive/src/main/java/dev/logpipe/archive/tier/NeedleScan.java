package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.Block;
import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A one-token query ({@code zqxneedle}, {@code message:CO-9931}) answered from an archive's candidate blocks without
 * a restore: each block read and decoded, each record's message tokenized by the hot index's analyzer, a record
 * matching when the token is among them, exactly as the hot index's term query matches. For the first search of an
 * archived day, when restoring even a few blocks into Lucene would cost more than reading them, and only over at most
 * {@link #MAX_BYTES} of blocks.
 */
final class NeedleScan {
    private static final Comparator<Match> NEWEST_FIRST =
            Comparator.comparingLong(Match::eventTimeMillis).reversed().thenComparing(Match::id);

    /**
     * Raw bytes of candidate blocks a scan reads at most for one day: what it decodes and the most its matches can
     * hold. More is not a needle; the blocks are restored into the cache instead.
     */
    static final long MAX_BYTES = 16L << 20;

    /** A matching record: its sort key and source. */
    record Match(long eventTimeMillis, IdBytes id, String source) {}

    private NeedleScan() {}

    /** The token of a query this scan answers: one unquoted token on the message, no service filter. */
    static Optional<String> token(ShardQuery q) {
        if (!q.filters().isEmpty()
                || !(q.query().root() instanceof QueryNode.Text t)
                || t.quoted()
                || (t.field() != null && !t.field().equals(Fields.MESSAGE))) {
            return Optional.empty();
        }
        List<String> tokens = LogAnalyzer.queryTokens(t.text());
        return tokens.size() == 1 ? Optional.of(tokens.get(0)) : Optional.empty();
    }

    /** Every match in the blocks, in the order of {@link ShardSearcher.Order#NEWEST_FIRST}. */
    static List<Match> scan(
            ShardId shard, BlockIndex index, List<Integer> blocks, ShardQuery q, String token, long deadlineNanos)
            throws IOException {
        List<Match> out = new ArrayList<>();
        for (int b : blocks) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new ShardSearcher.TimedOut(shard);
            }
            Block block = index.reader().block(b);
            for (int i = 0; i < block.size(); i++) {
                long t = block.eventTimeMillis(i);
                if (t < q.fromMillis() || t >= q.toMillis()) {
                    continue;
                }
                if (LogAnalyzer.hasIndexToken(block.message(i), token)) {
                    out.add(new Match(t, IdBytes.of(block.recordId(i)), block.source(i)));
                }
            }
        }
        out.sort(NEWEST_FIRST);
        return out;
    }

    /** The matches after {@code after} (null: from the start) in {@code order}, at most {@code limit}. */
    static List<Match> page(List<Match> newestFirst, ShardSearcher.Order order, After after, int limit) {
        List<Match> inOrder = new ArrayList<>(newestFirst);
        if (order == ShardSearcher.Order.OLDEST_FIRST) {
            java.util.Collections.reverse(inOrder);
        }
        List<Match> out = new ArrayList<>();
        IdBytes afterId = after == null ? null : IdBytes.of(after.recordId());
        for (Match m : inOrder) {
            if (after != null && !isAfter(m, after.eventTimeMillis(), afterId, order)) {
                continue;
            }
            out.add(m);
            if (out.size() == limit) {
                break;
            }
        }
        return out;
    }

    private static boolean isAfter(Match m, long time, IdBytes id, ShardSearcher.Order order) {
        int c = order == ShardSearcher.Order.NEWEST_FIRST
                ? Long.compare(time, m.eventTimeMillis()) // newer first
                : Long.compare(m.eventTimeMillis(), time);
        if (c != 0) {
            return c > 0;
        }
        int byId = m.id().compareTo(id);
        return order == ShardSearcher.Order.NEWEST_FIRST ? byId > 0 : byId < 0;
    }
}
