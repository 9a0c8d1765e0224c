package dev.logpipe.query.internal.search;

import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.internal.memory.AnswerMemory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the stored sources of an ordered list of hits within a budget of bytes and a deadline, and keeps the longest
 * prefix of the list that fits: the first source always (when asked: an answer carries at least one record, whatever
 * its size), each next one while the sources before it and it stay within {@code maxBytes}, none once the deadline
 * has passed. A source's length is known before it is read, so one over the budget is never read.
 *
 * <p>Reads in rounds of parallel jobs (by searcher, in parts of at least {@link #PER_JOB} documents, each in document
 * order; on an engine that {@link ShardSource#callsTogether}, one request per round for every searcher's documents), each round as many hits as the sizes read so far say still fit. Within a round the jobs race for the
 * budget, so a later hit may take it from an earlier one; every length is learnt either way, so the round then keeps
 * exactly the prefix that fits, drops what lies past it and reads what the prefix still lacks. Memory held by sources
 * never exceeds the budget (plus the first source when it alone is larger).
 *
 * <p>With an answer's lease on the memory for answers, each source is reserved from it as its length is learnt, just
 * before it is read, so a small answer holds only its own bytes. Sources the memory did not have room for in a round
 * are reserved after it: without waiting once the answer has a record (short of memory it is cut there, {@link
 * Cut#ANSWER_MEMORY}); before its first record, by waiting up to the deadline while holding none of its sources (never
 * holding some while waiting for more), and refusing the request at the deadline as a reservation does.
 */
public final class SourceReader {
    static final int PER_JOB = 16;

    private SourceReader() {}

    /** One hit to read: its document in a searcher held open by the caller. */
    public record Ref(ShardSearcher searcher, int doc) {}

    /** Why a prefix is shorter than the list. */
    public enum Cut {
        MAX_ANSWER_BYTES,
        TIMEOUT,
        /** The memory for answers in flight had no room for more once the answer had a record. */
        ANSWER_MEMORY
    }

    /** The sources of the first {@code sources.length} hits, their stored bytes, and why it stopped short (or null). */
    public record Read(String[] sources, long bytes, Cut cut) {}

    /**
     * What a read may take: at most {@code maxBytes} of sources, until {@code deadlineNanos}, each reserved from
     * {@code lease} (null: no accounting).
     */
    public record Budget(long maxBytes, long deadlineNanos, AnswerMemory.Lease lease) {}

    /** The prefix of {@code refs} that fits, the first always. */
    public static Read read(FanOut fanOut, List<Ref> refs, int lanes, long maxBytes, long deadlineNanos)
            throws IOException {
        return read(fanOut, refs, lanes, new Budget(maxBytes, deadlineNanos, null), true);
    }

    /**
     * The prefix of {@code refs} that fits in the budget's bytes and in what its lease can reserve, the first too
     * only when {@code firstAlways}; on return the lease holds what it held before plus the sources returned.
     *
     * @throws dev.logpipe.query.internal.http.Refusal the memory had no room for the first record by the
     *     deadline ({@code 503 answer_memory}, {@code 429 tenant_answer_memory})
     */
    public static Read read(FanOut fanOut, List<Ref> refs, int lanes, Budget budget, boolean firstAlways)
            throws IOException {
        AnswerMemory.Lease lease = budget.lease();
        long base = lease == null ? 0 : lease.held();
        int threads = Math.max(1, Math.min(lanes, Runtime.getRuntime().availableProcessors()));
        Read r = new Reading(fanOut, refs, threads, budget.deadlineNanos())
                .within(budget.maxBytes(), firstAlways, lease, base);
        if (lease != null && lease.held() > base + r.bytes()) {
            lease.keep(base + r.bytes());
        }
        return r;
    }

    /**
     * One read of {@code refs}: its sources and their lengths by position as they are learnt. Its rounds run on the
     * calling thread; a round's jobs fill distinct positions.
     */
    private static final class Reading {
        private final FanOut fanOut;
        private final List<Ref> refs;
        private final int threads;
        private final long deadlineNanos;
        private final String[] out;
        private final long[] lengths;

        Reading(FanOut fanOut, List<Ref> refs, int threads, long deadlineNanos) {
            this.fanOut = fanOut;
            this.refs = refs;
            this.threads = threads;
            this.deadlineNanos = deadlineNanos;
            this.out = new String[refs.size()];
            this.lengths = new long[refs.size()];
            Arrays.fill(lengths, -1); // not visited
        }

        Read within(long maxBytes, boolean firstAlways, AnswerMemory.Lease lease, long base) throws IOException {
            int n = refs.size();
            int from = 0;
            long kept = 0;
            int round = Math.min(n, PER_JOB * threads);
            while (from < n) {
                int to = Math.min(n, from + round);
                AtomicLong used = new AtomicLong(kept);
                pass(from, to, (p, bytes) -> {
                    if (p == 0 && firstAlways) {
                        if (lease != null && !lease.tryReserve(bytes)) {
                            return false;
                        }
                        used.addAndGet(bytes);
                        return true;
                    }
                    long u;
                    do {
                        u = used.get();
                        if (u + bytes > maxBytes) {
                            return false;
                        }
                    } while (!used.compareAndSet(u, u + bytes));
                    if (lease != null && !lease.tryReserve(bytes)) {
                        used.addAndGet(-bytes);
                        return false;
                    }
                    return true;
                });
                // the prefix that fits, by the lengths now known; past it: dropped; in it but refused in the race: read
                int end = from;
                while (end < to
                        && lengths[end] >= 0
                        && ((end == 0 && firstAlways) || kept + lengths[end] <= maxBytes)) {
                    kept += lengths[end];
                    end++;
                }
                for (int p = end; p < to; p++) {
                    out[p] = null;
                }
                if (lease
                        != null) { // hold exactly the prefix: give back what was dropped, reserve what is still unread
                    long held = lease.held() - base;
                    if (held > kept) {
                        lease.keep(base + kept);
                    } else if (held < kept && !lease.tryReserve(kept - held)) {
                        int e = from;
                        while (e < end && out[e] != null) {
                            e++;
                        }
                        if (e > 0) { // the answer has records: cut it there rather than wait holding them
                            return prefix(out, lengths, e, Cut.ANSWER_MEMORY);
                        }
                        for (int p = from; p < end; p++) { // none yet: wait for all of it, holding none of it
                            out[p] = null;
                        }
                        lease.keep(base);
                        long wait = Math.min(kept, maxBytes); // a first record past max_answer_bytes is taken anyway
                        lease.reserve(wait, deadlineNanos);
                        if (kept > wait) {
                            lease.force(kept - wait);
                        }
                    }
                }
                List<Integer> missing = new ArrayList<>();
                for (int p = from; p < end; p++) {
                    if (out[p] == null) {
                        missing.add(p);
                    }
                }
                if (!missing.isEmpty()) { // they fit: read without a budget
                    readPositions(missing, (p, bytes) -> true);
                }
                for (int p = from; p < end; p++) {
                    if (out[p] == null) {
                        return prefix(out, lengths, p, Cut.TIMEOUT);
                    }
                }
                if (end < to) {
                    return prefix(out, lengths, end, lengths[end] < 0 ? Cut.TIMEOUT : Cut.MAX_ANSWER_BYTES);
                }
                from = to;
                long avg = Math.max(1, kept / from);
                long fits = (maxBytes - kept) / avg + 1;
                round = (int) Math.max(PER_JOB, Math.min(n - from, fits));
            }
            return new Read(out, kept, null);
        }

        private void pass(int from, int to, Admit admit) throws IOException {
            List<Integer> positions = new ArrayList<>(to - from);
            for (int p = from; p < to; p++) {
                positions.add(p);
            }
            readPositions(positions, admit);
        }

        private void readPositions(List<Integer> positions, Admit admit) throws IOException {
            Map<ShardSearcher, List<Integer>> bySearcher = new IdentityHashMap<>();
            for (int p : positions) {
                bySearcher
                        .computeIfAbsent(refs.get(p).searcher(), k -> new ArrayList<>())
                        .add(p);
            }
            if (fanOut.source().callsTogether()) { // a remote engine: every searcher's in one round trip
                readTogether(bySearcher, admit);
                return;
            }
            int perJob = Math.max(PER_JOB, (positions.size() + threads - 1) / threads);
            List<List<Integer>> jobs = new ArrayList<>();
            for (List<Integer> at : bySearcher.values()) {
                for (int j = 0; j < at.size(); j += perJob) {
                    jobs.add(at.subList(j, Math.min(at.size(), j + perJob)));
                }
            }
            fanOut.each(jobs.size(), threads, deadlineNanos, j -> {
                List<Integer> at = jobs.get(j);
                int[] docs = new int[at.size()];
                for (int i = 0; i < docs.length; i++) {
                    docs[i] = refs.get(at.get(i)).doc();
                }
                String[] src = refs.get(at.get(0)).searcher().sources(docs, (i, bytes) -> {
                    lengths[at.get(i)] = bytes;
                    return admit.take(at.get(i), bytes);
                });
                for (int i = 0; i < docs.length; i++) {
                    out[at.get(i)] = src[i]; // distinct slots per job; each() returning publishes them
                }
            });
        }

        /** The positions' sources through {@link ShardSource#sourcesAll}, on the calling thread. */
        private void readTogether(Map<ShardSearcher, List<Integer>> bySearcher, Admit admit) throws IOException {
            if (System.nanoTime() - deadlineNanos > 0) {
                return; // left unread: the prefix ends at the first of them (TIMEOUT)
            }
            List<ShardSearcher> searchers = new ArrayList<>(bySearcher.keySet());
            List<int[]> docs = new ArrayList<>(searchers.size());
            List<Integer> flat = new ArrayList<>();
            for (ShardSearcher s : searchers) {
                List<Integer> at = bySearcher.get(s);
                int[] d = new int[at.size()];
                for (int i = 0; i < d.length; i++) {
                    d[i] = refs.get(at.get(i)).doc();
                }
                docs.add(d);
                flat.addAll(at);
            }
            String[][] src = fanOut.source().sourcesAll(searchers, docs, (i, bytes) -> {
                lengths[flat.get(i)] = bytes;
                return admit.take(flat.get(i), bytes);
            });
            for (int i = 0; i < searchers.size(); i++) {
                List<Integer> at = bySearcher.get(searchers.get(i));
                for (int j = 0; j < at.size(); j++) {
                    out[at.get(j)] = src[i][j];
                }
            }
        }
    }

    private static Read prefix(String[] out, long[] lengths, int k, Cut cut) {
        String[] p = Arrays.copyOf(out, k);
        long bytes = 0;
        for (int i = 0; i < k; i++) {
            bytes += lengths[i];
        }
        return new Read(p, bytes, cut);
    }

    /** Decides for a position (its index in the list) whether to read its source of {@code bytes}. */
    @FunctionalInterface
    private interface Admit {
        boolean take(int position, int bytes);
    }
}
