package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A searcher over an archived day not restored whole: a query's required labels, message tokens and time range pick
 * the blocks that may hold a match (by the footer and the token filters, {@link BlockIndex}, nothing fetched); none,
 * and it answers "no match" at once; else only those blocks are restored into the day's cache shard (beside any
 * restored before) and searched there, which is exact because the blocks left out cannot hold a match. A call without
 * a query ({@code maxTime}, sources outside a query) restores the whole day. So a needle query over many archived days
 * fetches the few blocks that may hold the needle.
 *
 * <p>The constructor takes the day's block index and the tier's callbacks (restore, skip count, cache test, prefetch),
 * once per search; no value groups them.
 */
final class ArchivedDaySearcher implements ShardSearcher {
    /** Restores blocks of the day (all when null) and opens the cache shard that holds them. */
    interface Restorer {
        ShardSearcher open(BitSet blocks) throws IOException;
    }

    /** Blocks a page restores first; doubled while the page is not settled. */
    private static final int FIRST_BLOCKS = 2;

    private final ShardId shard;
    private final BlockIndex index;
    private final long records;
    private final Restorer restorer;
    private final Runnable skipped;
    private final java.util.function.Predicate<BitSet> cached;
    private final java.util.function.Consumer<BitSet> prefetch;
    /** The page the last {@link #keys} answered by a {@link NeedleScan}: its keys' docs index it. */
    private List<NeedleScan.Match> scanned;

    private ShardSearcher restored;
    /** The blocks {@link #restored} holds for sure (null: all of them). */
    private BitSet holding = new BitSet();

    ArchivedDaySearcher(
            ShardId shard,
            BlockIndex index,
            long records,
            Restorer restorer,
            Runnable skipped,
            java.util.function.Predicate<BitSet> cached,
            java.util.function.Consumer<BitSet> prefetch) {
        this.shard = shard;
        this.index = index;
        this.records = records;
        this.restorer = restorer;
        this.skipped = skipped;
        this.cached = cached;
        this.prefetch = prefetch;
    }

    /**
     * The matches of a one-token query read from its candidate blocks ({@link NeedleScan}), when the cache shard does
     * not hold them all yet; null when the query is not one token, or the blocks are restored already. The blocks
     * are then restored in the background for the next query.
     */
    private synchronized List<NeedleScan.Match> scan(ShardQuery q, List<Integer> candidates, long deadlineNanos)
            throws IOException {
        java.util.Optional<String> token = NeedleScan.token(q);
        if (holding == null || token.isEmpty()) {
            return null;
        }
        BitSet wanted = new BitSet();
        candidates.forEach(wanted::set);
        BitSet missing = (BitSet) wanted.clone();
        missing.andNot(holding);
        if (restored != null && missing.isEmpty() || cached.test(wanted)) {
            return null; // the cache shard holds them: Lucene answers faster than a scan
        }
        // what a scan holds: the blocks' columns, or (format 2 rebuilds them) their sources, whichever is more; a
        // block's sources are estimated as its share of the day's
        var footer = index.reader().footer();
        long raw = 0;
        for (int b : candidates) {
            var block = index.block(b);
            long sources = footer.records() == 0 ? 0 : footer.sourceBytes() * block.records() / footer.records();
            raw += Math.max(block.rawBytes(), sources);
        }
        if (raw > NeedleScan.MAX_BYTES) {
            return null; // not a needle: restoring the blocks bounds the memory, a scan would hold every match
        }
        List<NeedleScan.Match> all = NeedleScan.scan(shard, index, candidates, q, token.get(), deadlineNanos);
        prefetch.accept(wanted);
        return all;
    }

    /**
     * A searcher over a cache shard holding every block that may match {@code q} (restored now when needed), or null
     * when no block may match: the blocks left out cannot change the answer.
     */
    private synchronized ShardSearcher forQuery(ShardQuery q) throws IOException {
        if (holding == null) {
            return restored;
        }
        BitSet candidates = new BitSet();
        index.candidates(q).forEach(candidates::set);
        if (candidates.isEmpty()) {
            skipped.run();
            return null;
        }
        BitSet missing = (BitSet) candidates.clone();
        missing.andNot(holding);
        if (restored == null || !missing.isEmpty()) {
            reopen(candidates);
        }
        return restored;
    }

    /** A searcher over the whole day (restored now when needed): for calls without a query. */
    private synchronized ShardSearcher opened() throws IOException {
        if (holding != null) {
            reopen(null);
        }
        return restored;
    }

    private void reopen(BitSet blocks) throws IOException {
        BitSet wanted = blocks == null ? null : union(blocks);
        ShardSearcher next = restorer.open(wanted);
        if (restored != null) {
            restored.close();
        }
        restored = next;
        holding = wanted;
    }

    private BitSet union(BitSet blocks) {
        BitSet all = (BitSet) holding.clone();
        all.or(blocks);
        return all;
    }

    @Override
    public ShardId shard() {
        return shard;
    }

    @Override
    public int docs() {
        return (int) Math.min(Integer.MAX_VALUE, records);
    }

    /**
     * A page of keys, restoring the candidate blocks in the page's time order (newest first for
     * {@code NEWEST_FIRST}) a few at a time, and stopping as soon as the page is full with keys strictly beyond every
     * block not restored: those blocks cannot hold a key that belongs on the page. The total is then a lower bound.
     */
    @Override
    public Keys keys(ShardQuery q, Order order, After after, int limit, long deadlineNanos) throws IOException {
        List<Integer> candidates;
        synchronized (this) {
            if (holding == null) {
                return restored.keys(q, order, after, limit, deadlineNanos);
            }
            candidates = new java.util.ArrayList<>(index.candidates(q));
        }
        if (candidates.isEmpty()) {
            skipped.run();
            return new Keys(List.of(), 0, true);
        }
        List<NeedleScan.Match> all = scan(q, candidates, deadlineNanos);
        if (all != null) {
            List<NeedleScan.Match> page = NeedleScan.page(all, order, after, limit);
            List<Key> keys = new java.util.ArrayList<>(page.size());
            for (int i = 0; i < page.size(); i++) {
                keys.add(new Key(page.get(i).eventTimeMillis(), page.get(i).id(), i));
            }
            synchronized (this) {
                scanned = page;
            }
            return new Keys(keys, all.size(), true);
        }
        synchronized (this) {
            scanned = null;
        }
        boolean newest = order == Order.NEWEST_FIRST;
        // blocks wholly before the cursor in the page's order hold no key after it (their matches still count in the
        // total, which is then a lower bound)
        boolean whole = after == null
                || !candidates.removeIf(b -> newest
                        ? index.block(b).minEventTimeMillis() > after.eventTimeMillis()
                        : index.block(b).maxEventTimeMillis() < after.eventTimeMillis());
        if (candidates.isEmpty()) {
            return new Keys(List.of(), 0, false);
        }
        candidates.sort(
                newest
                        ? java.util.Comparator.comparingLong(
                                        (Integer b) -> index.block(b).maxEventTimeMillis())
                                .reversed()
                        : java.util.Comparator.comparingLong(
                                (Integer b) -> index.block(b).minEventTimeMillis()));
        int take = Math.min(candidates.size(), FIRST_BLOCKS);
        while (true) {
            BitSet wanted = new BitSet();
            candidates.subList(0, take).forEach(wanted::set);
            ShardSearcher s = restoredHolding(wanted);
            Keys got = s.keys(q, order, after, limit, deadlineNanos);
            if (take == candidates.size()) {
                return whole ? got : new Keys(got.keys(), got.total(), false);
            }
            List<Key> keys = got.keys();
            if (keys.size() >= limit) {
                long last = keys.get(keys.size() - 1).eventTimeMillis();
                boolean settled = true;
                for (int b : candidates.subList(take, candidates.size())) {
                    var block = index.block(b);
                    if (newest ? block.maxEventTimeMillis() >= last : block.minEventTimeMillis() <= last) {
                        settled = false;
                        break;
                    }
                }
                if (settled) {
                    return new Keys(keys, got.total(), false);
                }
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new TimedOut(shard);
            }
            take = Math.min(candidates.size(), take * 2);
        }
    }

    /** A searcher over a cache shard holding at least {@code wanted} (restored now when needed). */
    private synchronized ShardSearcher restoredHolding(BitSet wanted) throws IOException {
        if (holding == null) {
            return restored;
        }
        BitSet missing = (BitSet) wanted.clone();
        missing.andNot(holding);
        if (restored == null || !missing.isEmpty()) {
            reopen(wanted);
        }
        return restored;
    }

    @Override
    public String[] sources(int[] docs, SourceBudget budget) throws IOException {
        if (docs.length == 0) {
            return new String[0];
        }
        synchronized (this) {
            if (scanned != null) { // the docs index the page the scan answered
                String[] out = new String[docs.length];
                for (int i = 0; i < docs.length; i++) {
                    String source = scanned.get(docs[i]).source();
                    if (budget.take(i, source.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)) {
                        out[i] = source;
                    }
                }
                return out;
            }
        }
        ShardSearcher s;
        synchronized (this) {
            s = restored != null ? restored : opened(); // the docs are of the searcher the keys came from
        }
        return s.sources(docs, budget);
    }

    @Override
    public List<LongKey> longKeys(
            ShardQuery q, String structuredField, boolean ascending, int limit, long deadlineNanos) throws IOException {
        ShardSearcher s = forQuery(q);
        return s == null ? List.of() : s.longKeys(q, structuredField, ascending, limit, deadlineNanos);
    }

    @Override
    public List<LongKey> keysByTime(
            String timeField, ShardQuery q, long afterTime, String afterId, int limit, long deadlineNanos)
            throws IOException {
        ShardSearcher s = forQuery(q);
        return s == null ? List.of() : s.keysByTime(timeField, q, afterTime, afterId, limit, deadlineNanos);
    }

    @Override
    public long count(ShardQuery q, long deadlineNanos) throws IOException {
        long[] n = columns(q, null, deadlineNanos);
        if (n != null) {
            return n[0];
        }
        List<Integer> candidates = index.candidates(q);
        if (candidates.isEmpty()) {
            return 0;
        }
        List<NeedleScan.Match> all = scan(q, candidates, deadlineNanos);
        if (all != null) {
            return all.size();
        }
        ShardSearcher s = forQuery(q);
        return s == null ? 0 : s.count(q, deadlineNanos);
    }

    @Override
    public long[] histogram(ShardQuery q, Histogram h, long deadlineNanos) throws IOException {
        long[] buckets = columns(q, h, deadlineNanos);
        if (buckets != null) {
            return buckets;
        }
        ShardSearcher s = forQuery(q);
        return s == null ? new long[h.buckets()] : s.histogram(q, h, deadlineNanos);
    }

    /**
     * A count (one element) or histogram read from the candidate blocks' time and level columns, nothing restored,
     * when the query is decided by event time and level alone ({@link BlockIndex#levelsOnly}) and the day is not
     * restored whole; null otherwise (the restored shard answers).
     */
    private long[] columns(ShardQuery q, Histogram h, long deadlineNanos) throws IOException {
        java.util.function.Predicate<dev.logpipe.record.Level> levels = BlockIndex.levelsOnly(q);
        synchronized (this) {
            if (levels == null || holding == null) {
                return null;
            }
        }
        long[] out = new long[h == null ? 1 : h.buckets()];
        for (int b : index.candidates(q)) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new TimedOut(shard);
            }
            var columns = index.reader().timesAndLevels(b);
            long[] times = columns.eventTimes();
            for (int i = 0; i < times.length; i++) {
                long t = times[i];
                if (t < q.fromMillis() || t >= q.toMillis() || !levels.test(columns.levels()[i])) {
                    continue;
                }
                if (h == null) {
                    out[0]++;
                } else {
                    long bucket = Math.floorDiv(t - h.startMillis(), h.intervalMillis());
                    if (bucket >= 0 && bucket < out.length) {
                        out[(int) bucket]++;
                    }
                }
            }
        }
        return out;
    }

    @Override
    public Values values(ShardQuery q, String field, int maxValues, long deadlineNanos) throws IOException {
        ShardSearcher s = forQuery(q);
        return s == null ? new Values(Map.of(), 0, 0, 0, true) : s.values(q, field, maxValues, deadlineNanos);
    }

    @Override
    public OptionalLong maxTime(String timeField) throws IOException {
        return opened().maxTime(timeField);
    }

    @Override
    public synchronized void close() throws IOException {
        if (restored != null) {
            restored.close();
        }
    }
}
