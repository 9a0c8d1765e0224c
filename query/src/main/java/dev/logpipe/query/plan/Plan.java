package dev.logpipe.query.plan;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.SearchPage;
import dev.logpipe.index.store.ShardSearcher;
import java.util.List;

/**
 * A query's plan, fixed before any shard is searched: the range after clamping, the shards to search in merge order
 * (a prefix of the candidates), the ones pruned by time, labels or cursor without being opened, and the ones the
 * budget left out with why. {@code resumeAfter} continues past the budget's cut when a page is not full.
 */
public record Plan(
        String tenant,
        ShardKind kind,
        TimeRange range,
        boolean clamped,
        long maxWindowMillis,
        ShardSearcher.Order order,
        List<ShardId> searched,
        int pruned,
        List<Skipped> skipped,
        long plannedDocs,
        SearchPage.After resumeAfter) {
    public Plan {
        searched = List.copyOf(searched);
        skipped = List.copyOf(skipped);
    }

    /** A shard the budget left out. */
    public record Skipped(ShardId shard, String reason) {}

    public int planned() {
        return searched.size() + pruned + skipped.size();
    }
}
