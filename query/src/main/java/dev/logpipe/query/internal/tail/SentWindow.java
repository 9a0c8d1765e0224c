package dev.logpipe.query.internal.tail;

import dev.logpipe.index.store.read.IdBytes;
import java.util.Arrays;

/**
 * What one tail sent within its window: a (observed time, 64-bit record id hash) pair per record, sorted, in two
 * primitive arrays that never outgrow {@code budgetBytes} (16 bytes a record). Answers whether a record was sent and
 * how many sent records were observed before a time, both by binary search, and forgets the records observed before
 * a time by moving its start. Two different ids are taken for one only when they were observed in the same
 * millisecond and their 64-bit hashes are equal (about 2^-64 per pair); the tail then counts the one not sent as
 * skipped, so even that is never silent. When more records of one millisecond were sent than it can hold, it keeps
 * only their number ({@link #collapse}): it still counts them, and takes any record of that millisecond for sent.
 * Used by the tail's thread only; {@link #bytes} may be read by any thread.
 */
final class SentWindow {
    static final int BYTES_PER_RECORD = 2 * Long.BYTES;
    private static final int FIRST = 1024;
    private static final int SEED_HIGH = 0x5bd1e995;
    private static final int SEED_LOW = 0x1b873593;

    private final int capacity;
    private long[] times = new long[0];
    private long[] hashes = new long[0];
    private int start;
    private int end;
    private long collapsedTime = Long.MIN_VALUE;
    private long collapsedCount;
    private volatile long bytes;

    SentWindow(long budgetBytes) {
        if (budgetBytes < (long) BYTES_PER_RECORD * FIRST || budgetBytes / BYTES_PER_RECORD > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a tail window's budget must be between " + BYTES_PER_RECORD * FIRST
                    + " bytes and 32 GiB, was " + budgetBytes);
        }
        this.capacity = (int) (budgetBytes / BYTES_PER_RECORD);
    }

    /** The 64-bit hash a record id is kept as (two seeded 32-bit MurmurHash3 of its bytes). */
    static long hash(IdBytes id) {
        return ((long) Murmur3.x86_32(id, SEED_HIGH) << 32) | (Murmur3.x86_32(id, SEED_LOW) & 0xFFFF_FFFFL);
    }

    /** Records it holds at most. */
    int capacity() {
        return capacity;
    }

    /** Records it holds by (time, hash); those of a {@link #collapse collapsed} millisecond are not among them. */
    int size() {
        return end - start;
    }

    /** The bytes its arrays take now; never more than the budget. */
    long bytes() {
        return bytes;
    }

    /** Whether the record was sent; any record of a {@link #collapse collapsed} millisecond is taken for sent. */
    boolean contains(long observed, long hash) {
        if (collapsedCount > 0 && observed == collapsedTime) {
            return true;
        }
        int i = lowerBound(observed, hash);
        return i < end && times[i] == observed && hashes[i] == hash;
    }

    /** Sent records observed before {@code observed}. */
    long countBefore(long observed) {
        return lowerBound(observed, Long.MIN_VALUE) - start + (collapsedTime < observed ? collapsedCount : 0);
    }

    /** Forgets the records observed before {@code observed}. */
    void dropBefore(long observed) {
        if (collapsedTime < observed) {
            collapsedTime = Long.MIN_VALUE;
            collapsedCount = 0;
        }
        start = lowerBound(observed, Long.MIN_VALUE);
        if (start == end) {
            start = end = 0;
        }
    }

    /**
     * The earliest time to {@link #dropBefore} that leaves at most {@code keep} records, or {@link Long#MIN_VALUE}
     * when it holds no more than that already.
     */
    long floorToKeep(int keep) {
        int excess = size() - keep;
        return excess <= 0 ? Long.MIN_VALUE : times[start + excess - 1] + 1;
    }

    /**
     * Keeps only the number of the records it holds, all observed in one millisecond (the tail's cursor's, when more
     * were sent in it than the window can hold): they are still counted, any record of that millisecond is then taken
     * for sent, and records of it added later are only counted.
     *
     * @throws IllegalStateException it holds records of more than one millisecond
     */
    void collapse() {
        if (size() == 0) {
            return;
        }
        long time = times[start];
        if (times[end - 1] != time || (collapsedCount > 0 && collapsedTime != time)) {
            throw new IllegalStateException("a tail window collapses one millisecond only, it holds " + times[start]
                    + ".." + times[end - 1] + (collapsedCount > 0 ? " and " + collapsedTime : ""));
        }
        collapsedTime = time;
        collapsedCount += size();
        start = end = 0;
    }

    /**
     * Adds the first {@code n} records of the arrays (which it sorts).
     *
     * @throws IllegalStateException they would not fit in the budget ({@link #floorToKeep} makes room first)
     */
    void add(long[] addTimes, long[] addHashes, int n) {
        if (n == 0) {
            return;
        }
        if (collapsedCount > 0) {
            n = countCollapsed(addTimes, addHashes, n);
            if (n == 0) {
                return;
            }
        }
        sort(addTimes, addHashes, n);
        if (size() + n > capacity) {
            throw new IllegalStateException(
                    "a tail window of " + capacity + " records holds " + size() + " and cannot take " + n + " more");
        }
        makeRoom(n);
        // merge from the back into the room after end; when all are newer than what it holds (the usual case)
        // this only copies them
        int i = end - 1;
        int j = n - 1;
        for (int k = end + n - 1; j >= 0; k--) {
            if (i >= start && compare(times[i], hashes[i], addTimes[j], addHashes[j]) > 0) {
                times[k] = times[i];
                hashes[k] = hashes[i--];
            } else {
                times[k] = addTimes[j];
                hashes[k] = addHashes[j--];
            }
        }
        end += n;
    }

    /** Counts the records of the collapsed millisecond and moves the others to the front; returns how many. */
    private int countCollapsed(long[] addTimes, long[] addHashes, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            if (addTimes[i] == collapsedTime) {
                collapsedCount++;
            } else {
                addTimes[kept] = addTimes[i];
                addHashes[kept++] = addHashes[i];
            }
        }
        return kept;
    }

    /** Room for n more after end: compact to the front, or grow (doubling, never past the capacity). */
    private void makeRoom(int n) {
        if (end + n <= times.length) {
            return;
        }
        int size = size();
        if (times.length < capacity && size + n > times.length / 2) {
            int length = (int) Math.min(capacity, Math.max((long) FIRST, Math.max(2L * times.length, size + n)));
            long[] t = new long[length];
            long[] h = new long[length];
            System.arraycopy(times, start, t, 0, size);
            System.arraycopy(hashes, start, h, 0, size);
            times = t;
            hashes = h;
            bytes = (long) BYTES_PER_RECORD * length;
        } else {
            System.arraycopy(times, start, times, 0, size);
            System.arraycopy(hashes, start, hashes, 0, size);
        }
        start = 0;
        end = size;
    }

    /** The first position in [start, end) whose (time, hash) is not below the one given. */
    private int lowerBound(long time, long hash) {
        int lo = start;
        int hi = end;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(times[mid], hashes[mid], time, hash) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static void sort(long[] t, long[] h, int n) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> compare(t[x], h[x], t[y], h[y]));
        long[] st = new long[n];
        long[] sh = new long[n];
        for (int i = 0; i < n; i++) {
            st[i] = t[order[i]];
            sh[i] = h[order[i]];
        }
        System.arraycopy(st, 0, t, 0, n);
        System.arraycopy(sh, 0, h, 0, n);
    }

    private static int compare(long t1, long h1, long t2, long h2) {
        int c = Long.compare(t1, t2);
        return c != 0 ? c : Long.compare(h1, h2);
    }
}
