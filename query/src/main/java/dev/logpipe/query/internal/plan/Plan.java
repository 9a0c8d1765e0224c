package dev.logpipe.query.internal.plan;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.util.List;
import java.util.Map;

/**
 * A query's plan, fixed before any shard is searched: the tenant and its query, parsed once (engine-neutral, what
 * every shard search is handed through {@link #shardQuery()}), the range after clamping, the shards to search in merge order
 * (a prefix of the candidates), the ones pruned by time, labels or cursor without being opened, and the ones the
 * budget left out with why. {@code resumeAfter} continues past the budget's cut when a page is not full;
 * {@code spans} holds each searched shard's documents and time bounds, so a search can stop before shards that cannot
 * contribute to its page.
 */
public record Plan(
        String tenant,
        ParsedQuery query,
        ShardKind kind,
        TimeRange range,
        boolean clamped,
        long maxWindowMillis,
        ShardSearcher.Order order,
        List<ShardId> searched,
        int pruned,
        List<Skipped> skipped,
        long plannedDocs,
        After resumeAfter,
        Map<ShardId, Span> spans) {
    public Plan {
        searched = List.copyOf(searched);
        skipped = List.copyOf(skipped);
        spans = Map.copyOf(spans);
    }

    /**
     * What the metadata says of a shard to search: its documents (an estimate) and the event times of all of them lie
     * in [{@code minMillis}, {@code maxMillis}] (the shard's day when it has no metadata to go by).
     */
    public record Span(long docs, long minMillis, long maxMillis) {}

    /** The span of a searched shard. */
    public Span span(ShardId shard) {
        return spans.get(shard);
    }

    /** What each planned shard is searched for: the query, restricted to the tenant and the (clamped) range. */
    public ShardQuery shardQuery() {
        return ShardQuery.of(tenant, query, range.fromMillis(), range.toMillis());
    }

    /** A shard the budget left out. */
    public record Skipped(ShardId shard, String reason) {}

    public int planned() {
        return searched.size() + pruned + skipped.size();
    }
}
