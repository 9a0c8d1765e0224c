package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.Term;

/**
 * How many live documents of a segment hold a term, minute by minute, kept after the first count: a histogram whose
 * buckets are whole minutes (Grafana's steps, the native API's intervals from 1 m up) then adds up the minutes instead
 * of walking the term's postings again. What a count by level asks of the less frequent levels on every refresh. The
 * minutes start where the histogram's buckets do (a whole minute for the native API, 1 ms past one for LogQL's
 * windows), one entry per such phase.
 *
 * <p>A segment's view is immutable, so an entry never goes stale: it is keyed by the segment reader's own cache key,
 * which changes when documents of the segment are deleted. Bounded in bytes (4 per minute of the segment's span and
 * ~160 for the entry, a day is 5.8 KiB), least recently used first out; a segment spanning more than {@value #MAX_MINUTES} minutes is not kept.
 */
final class TermMinutes {
    static final long MINUTE = 60_000L;
    static final int MAX_MINUTES = 44_640; // 31 days
    /** What the query service keeps by default: ~1,400 day segments' counts of one term. */
    static final long DEFAULT_MAX_BYTES = 8L << 20;

    private final long maxBytes;
    private final Map<Key, Minutes> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long builds;

    /** One term in one segment view, in minutes starting {@code phase} ms past a whole minute. */
    private record Key(Object reader, Term term, long phase) {}

    /** A term's live documents per minute, the first starting at {@code firstStart} (epoch ms). */
    private record Minutes(long firstStart, int[] counts) {
        /** The counts, the record, its key and the map's entry (headers and references, about 160 bytes). */
        long bytes() {
            return 4L * counts.length + 160;
        }
    }

    TermMinutes(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * Adds the live documents of the segment holding {@code term} to {@code counts}, bucket by bucket, when the
     * histogram's interval is whole minutes and the segment is sorted; false (nothing added) otherwise. The caller has
     * checked that the segment's times lie inside the query's range.
     */
    boolean count(LeafReader segment, Term term, Histogram h, long[] counts, TimeSortedRuns.Check deadline)
            throws IOException {
        if (h.intervalMillis() % MINUTE != 0) {
            return false;
        }
        long phase = Math.floorMod(h.startMillis(), MINUTE); // LogQL's windows (t - range, t] start 1 ms past
        IndexReader.CacheHelper helper = segment.getReaderCacheHelper();
        if (helper == null) {
            return false;
        }
        Key key = new Key(helper.getKey(), term, phase);
        Minutes m = get(key);
        if (m == null) {
            m = build(segment, term, phase, deadline);
            if (m == null) {
                return false;
            }
            put(key, m);
        }
        for (int i = 0; i < m.counts().length; i++) {
            if (m.counts()[i] != 0) {
                long b = Math.floorDiv(m.firstStart() + i * MINUTE - h.startMillis(), h.intervalMillis());
                if (b >= 0 && b < counts.length) {
                    counts[(int) b] += m.counts()[i];
                }
            }
        }
        return true;
    }

    /** Counts built so far (each a walk of one term's postings in one segment). */
    synchronized long builds() {
        return builds;
    }

    /** Bytes held now. */
    synchronized long bytes() {
        return bytes;
    }

    private synchronized Minutes get(Key key) {
        return entries.get(key);
    }

    private synchronized void put(Key key, Minutes m) {
        builds++;
        if (m.bytes() > maxBytes || entries.containsKey(key)) {
            return;
        }
        entries.put(key, m);
        bytes += m.bytes();
        for (Iterator<Minutes> it = entries.values().iterator(); bytes > maxBytes && it.hasNext(); ) {
            bytes -= it.next().bytes();
            it.remove();
        }
    }

    private static Minutes build(LeafReader segment, Term term, long phase, TimeSortedRuns.Check deadline)
            throws IOException {
        PointValues points = segment.getPointValues(Fields.EVENT_TIME);
        if (points == null) {
            return null;
        }
        long first = Math.floorDiv(LongPoint.decodeDimension(points.getMinPackedValue(), 0) - phase, MINUTE);
        long last = Math.floorDiv(LongPoint.decodeDimension(points.getMaxPackedValue(), 0) - phase, MINUTE);
        if (last - first + 1 > MAX_MINUTES) {
            return null;
        }
        Histogram minutes = new Histogram(first * MINUTE + phase, MINUTE, (int) (last - first + 1));
        long[] counts = new long[minutes.buckets()];
        TimeSortedRuns.Runs runs = TimeSortedRuns.of(segment, minutes);
        if (runs == null) {
            return null;
        }
        TimeSortedRuns.countPostings(segment, term, runs, counts, deadline);
        int[] out = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            out[i] = (int) counts[i]; // a segment holds at most 2^31 documents
        }
        return new Minutes(first * MINUTE + phase, out);
    }
}
