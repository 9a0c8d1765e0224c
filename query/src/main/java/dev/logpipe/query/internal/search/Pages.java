package dev.logpipe.query.internal.search;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.plan.Plan;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * One search page over a plan's shards, in two phases. Phase one visits the shards in merge order (newest day first
 * for newest-first) in waves: one shard, then at least twice as many each time, or as many as the hits per shard so
 * far say the page still needs (all the rest after a shard without a hit), each shard returning the keys of its best {@code limit} hits and
 * keeping its searcher open; before each wave it stops when the merged page is full and no shard left can beat the
 * page's last key (by the time bounds of its metadata: day shards are disjoint in time, so a full page from newer days
 * ends the search). Phase two reads the stored sources of the page's winners only, through the same searchers, so a
 * reopen between the phases changes nothing. Close it to release the searchers.
 */
public final class Pages implements Closeable {
    private final FanOut fanOut;
    private final Plan plan;
    private final int lanes;
    private final long deadlineNanos;
    private final Map<ShardId, FanOut.Outcome<?>> outcomes = new LinkedHashMap<>();
    private final List<FanOut.Held<ShardSearcher.Keys>> held = new ArrayList<>();
    private final List<List<ShardSearcher.Key>> pages = new ArrayList<>();
    private List<KeyMerge.Pick> winners = List.of();
    private long total;
    private boolean exact = true;
    /** Visited shards that reported a lower bound, with it. */
    private final Map<ShardId, Long> bounded = new LinkedHashMap<>();
    /** Shards counted along with the first wave's keys (an engine that calls shards together), with the count. */
    private final Map<ShardId, Long> countedAlong = new LinkedHashMap<>();

    private boolean countsAsked;

    private long scannedDocs;

    public Pages(FanOut fanOut, Plan plan, int lanes, long deadlineNanos) {
        this.fanOut = fanOut;
        this.plan = plan;
        this.lanes = lanes;
        this.deadlineNanos = deadlineNanos;
    }

    /** Phase one: the keys of the first {@code limit} hits after {@code after} over the plan's shards. */
    public void collect(ShardQuery q, After after, int limit) {
        collect(q, after, limit, false, 0);
    }

    /**
     * Phase one, as {@link #collect(ShardQuery, After, int)}; on an engine that calls shards together, for a query
     * that pins no message token, the first wave also asks every other shard of the plan for its count in the same
     * round trip (each count until {@code countDeadlineNanos}), so a page its first shards fill has an exact total
     * without a second round trip. A query on labels or on everything matches a large share of each day, so its first
     * day usually fills the page; a message token is often rare (a needle), its page visits further days anyway and
     * the counts would be wasted (measured: docs/benchmarks.md).
     */
    public void collectCountingAlong(ShardQuery q, After after, int limit, long countDeadlineNanos) {
        boolean countAlong = fanOut.source().callsTogether()
                && q.query().requiredMessageTokens().isEmpty();
        collect(q, after, limit, countAlong, countDeadlineNanos);
    }

    private void collect(ShardQuery q, After after, int limit, boolean countAlong, long countDeadlineNanos) {
        List<ShardId> shards = plan.searched();
        ShardSearcher.Order order = plan.order();
        int next = 0;
        int wave = 1;
        while (next < shards.size() && !settled(shards.subList(next, shards.size()), limit)) {
            List<ShardId> w = shards.subList(next, (int) Math.min(shards.size(), (long) next + wave));
            ShardCall<ShardSearcher.Keys> call = new ShardCall.KeysOf(q, order, after, limit);
            List<ShardId> asked = w;
            Set<ShardId> countOnly = Set.of();
            if (countAlong && next == 0 && w.size() < shards.size()) {
                countOnly = Set.copyOf(shards.subList(w.size(), shards.size()));
                call = new ShardCall.KeysThenCountsOf((ShardCall.KeysOf) call, countOnly, countDeadlineNanos);
                countsAsked = true;
                asked = shards;
            }
            Set<ShardId> countsOnly = countOnly;
            Map<ShardId, FanOut.Outcome<FanOut.Held<ShardSearcher.Keys>>> r =
                    fanOut.runHeld(asked, lanes, deadlineNanos, call);
            r.forEach((id, o) -> {
                if (countsOnly.contains(id)) { // not visited: its count only (a failed one is counted later)
                    if (o.ok()) {
                        countedAlong.put(id, o.value().value().total());
                        closeQuietly(o.value());
                    }
                    return;
                }
                outcomes.put(id, o);
                if (o.ok()) {
                    held.add(o.value());
                    ShardSearcher.Keys k = o.value().value();
                    pages.add(k.keys());
                    Long counted = countedAlong.get(id); // counted in the first trip, keyed in a later one
                    if (k.totalExact() || counted == null) {
                        total += k.total();
                        exact &= k.totalExact();
                        if (!k.totalExact()) {
                            bounded.put(id, k.total());
                        }
                    } else {
                        total += counted;
                    }
                    scannedDocs += plan.span(id).docs();
                }
            });
            winners = KeyMerge.merge(pages, order, limit);
            next += w.size();
            wave = nextWave(wave, next, limit, winners.size());
        }
        for (ShardId id : shards.subList(next, shards.size())) { // not needed for the page: counted along, or not
            Long counted = countedAlong.get(id);
            if (counted == null) {
                exact = false;
            } else {
                total += counted;
            }
        }
    }

    /** True when the first wave asked other shards' counts along with its keys (its count deadline then ran). */
    public boolean countedAlong() {
        return countsAsked;
    }

    private static void closeQuietly(FanOut.Held<?> held) {
        try {
            held.close();
        } catch (IOException | RuntimeException e) {
            LoggerFactory.getLogger(Pages.class).warn("releasing a shard searcher failed: {}", e.toString());
        }
    }

    /**
     * How many shards the next wave searches: at least twice the last one, and as many as the hits per shard seen so
     * far say the rest of the page needs (all the rest when the shards searched had none: a rare term).
     */
    private static int nextWave(int last, int visited, int limit, long hits) {
        long needed = limit - Math.min(limit, hits);
        if (needed == 0) {
            return 2 * last;
        }
        if (hits == 0) {
            return Integer.MAX_VALUE;
        }
        long perShard = Math.max(1, hits / visited);
        return (int) Math.min(Integer.MAX_VALUE, Math.max(2L * last, (needed + perShard - 1) / perShard));
    }

    /** True when the page is full and none of {@code rest} can hold a hit ordered before its last key. */
    private boolean settled(List<ShardId> rest, int limit) {
        if (winners.size() < limit) {
            return false;
        }
        long t = winners.get(limit - 1).key().eventTimeMillis();
        for (ShardId id : rest) {
            Plan.Span s = plan.span(id);
            boolean mayBeat =
                    plan.order() == ShardSearcher.Order.NEWEST_FIRST ? s.maxMillis() >= t : s.minMillis() <= t;
            if (mayBeat) {
                return false;
            }
        }
        return true;
    }

    /**
     * Makes the total exact when counting allows it before {@code deadlineNanos}: every shard that reported a lower
     * bound and every shard the page did not need is counted exactly, on the plan's lanes. The total is exact when each
     * of them was counted in time; otherwise it stays a lower bound (the larger of the bound and what was counted).
     * Shards that failed or were skipped by the plan are not counted here (the answer is partial).
     */
    public void countExactly(ShardQuery q, long deadlineNanos) {
        if (exact) {
            return;
        }
        List<ShardId> rest = new ArrayList<>(bounded.keySet());
        for (ShardId id : plan.searched()) {
            if (!outcomes.containsKey(id) && !countedAlong.containsKey(id)) {
                rest.add(id);
            }
        }
        Map<ShardId, FanOut.Outcome<Long>> counts = fanOut.run(rest, lanes, deadlineNanos, new ShardCall.CountOf(q));
        boolean all = true;
        long sum = total;
        for (ShardId id : rest) {
            FanOut.Outcome<Long> o = counts.get(id);
            if (o == null || !o.ok()) {
                all = false;
                continue;
            }
            Long bound = bounded.get(id);
            sum += bound == null ? o.value() : Math.max(0, o.value() - bound);
        }
        total = sum;
        exact = all;
    }

    /**
     * Phase two: the winners' stored sources, in page order, as long a prefix of the page as fits in
     * {@code maxBytes} before {@code deadlineNanos} (see {@link SourceReader}), read in parallel on at most as many
     * threads as there are processors, each reserved from {@code lease} (null: none) as it is read.
     */
    public SourceReader.Read sources(long maxBytes, long deadlineNanos, AnswerMemory.Lease lease) throws IOException {
        List<SourceReader.Ref> refs = new ArrayList<>(winners.size());
        for (KeyMerge.Pick w : winners) {
            refs.add(new SourceReader.Ref(held.get(w.page()).searcher(), w.key().doc()));
        }
        return SourceReader.read(fanOut, refs, lanes, new SourceReader.Budget(maxBytes, deadlineNanos, lease), true);
    }

    public List<KeyMerge.Pick> winners() {
        return winners;
    }

    /** The outcome of every shard visited, in merge order; the plan's shards not in it were not needed. */
    public Map<ShardId, FanOut.Outcome<?>> outcomes() {
        return outcomes;
    }

    /** Matches counted in the shards that answered. */
    public long total() {
        return total;
    }

    /** False when a shard reported a lower bound or shards were not visited, and {@link #countExactly} did not settle it. */
    public boolean totalExact() {
        return exact;
    }

    /** Live documents of the shards that answered (from their metadata). */
    public long scannedDocs() {
        return scannedDocs;
    }

    @Override
    public void close() {
        held.forEach(Pages::closeQuietly);
        held.clear();
    }
}
