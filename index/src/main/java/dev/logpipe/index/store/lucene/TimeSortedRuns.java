package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.read.ShardQuery;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.Bits;

/**
 * A segment sorted newest first by {@code event_time} (the index sort, {@link IndexSchema#indexSort()}) holds the
 * documents of any time interval as one run of doc ids. Where each bucket of a histogram starts, deleted documents
 * included (they keep their doc ids), is found once by searching the doc values for its edge: then a document's bucket
 * is where its doc id falls among the runs, and a histogram of any query over the segment reads no further time.
 */
final class TimeSortedRuns {
    private TimeSortedRuns() {}

    /** True when the segment is sorted by event time, newest first, and every document has exactly one. */
    static boolean applies(LeafReader segment) throws IOException {
        Sort sort = segment.getMetaData().getSort();
        if (sort == null || sort.getSort().length == 0) {
            return false;
        }
        SortField first = sort.getSort()[0];
        if (!Fields.EVENT_TIME.equals(first.getField())
                || !first.getReverse()
                || first.getType() != SortField.Type.LONG) {
            return false;
        }
        PointValues points = segment.getPointValues(Fields.EVENT_TIME);
        return points != null && points.getDocCount() == segment.maxDoc() && points.size() == segment.maxDoc();
    }

    /** The runs of {@code h}'s buckets in a segment, or null when the segment is not sorted so ({@link #applies}). */
    static Runs of(LeafReader segment, Histogram h) throws IOException {
        if (!applies(segment)) {
            return null;
        }
        int n = h.buckets();
        int maxDoc = segment.maxDoc();
        Probe times = new Probe(segment);
        long newest = times.at(0);
        long oldest = times.at(maxDoc - 1);
        int[] starts = new int[n + 3];
        // position p (1..n+1) starts where the times fall below the start of bucket n - p + 1, newest first
        int from = 0;
        for (int p = 1; p <= n + 1; p++) {
            long edge = edge(h, n - p + 1);
            if (edge > newest) {
                starts[p] = 0;
            } else if (edge <= oldest) {
                starts[p] = maxDoc;
            } else {
                from = firstBefore(times, Math.max(from, 1), maxDoc - 1, edge);
                starts[p] = from;
            }
        }
        starts[n + 2] = maxDoc;
        return new Runs(starts, n);
    }

    /** The start of bucket {@code b}, held at the ends of a long when it lies past them. */
    private static long edge(Histogram h, long b) {
        try {
            return Math.addExact(h.startMillis(), Math.multiplyExact(h.intervalMillis(), b));
        } catch (ArithmeticException e) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /**
     * The first doc in [{@code lo}, {@code hi}] whose time is before {@code edge}, knowing that the doc before
     * {@code lo} is at or after it and {@code hi} is before it. Interpolates between the times at the bracket's ends
     * (a segment's times are spread about evenly, so two or three reads usually find it) and halves the bracket
     * whenever an interpolation did not.
     */
    static int firstBefore(Probe times, int lo, int hi, long edge) throws IOException {
        long tLo = times.at(lo - 1);
        long tHi = times.at(hi);
        boolean interpolate = true;
        while (lo < hi) {
            int probe;
            if (interpolate && tLo > tHi) {
                double share = (double) (tLo - edge) / (double) (tLo - tHi);
                probe = lo + (int) Math.min(hi - lo - 1, Math.max(0, share * (hi - lo)));
            } else {
                probe = (lo + hi) >>> 1;
            }
            int width = hi - lo;
            long t = times.at(probe);
            if (t >= edge) {
                lo = probe + 1;
                tLo = t;
            } else {
                hi = probe;
                tHi = t;
            }
            interpolate = hi - lo <= width / 2 || !interpolate;
        }
        return lo;
    }

    /** Something to do now and then during a long count: check the request's deadline. */
    interface Check {
        void now();
    }

    /**
     * Counts a segment wholly inside the query's range where one term is not in every document by that term alone:
     * from its counts per minute when the buckets are whole minutes ({@code minutes}), else from its
     * postings and the runs. False (nothing counted) when the segment is not inside the range or not sorted.
     */
    static boolean countTerm(
            LeafReader segment,
            Term term,
            ShardQuery q,
            Histogram h,
            Memo runs,
            TermMinutes minutes,
            long[] counts,
            Check deadline)
            throws IOException {
        if (!inside(segment, q.fromMillis(), q.toMillis())) {
            return false;
        }
        if (minutes.count(segment, term, h, counts, deadline)) {
            return true;
        }
        Runs r = runs.of(segment, h);
        if (r == null) {
            return false;
        }
        countPostings(segment, term, r, counts, deadline);
        return true;
    }

    /** Whether every time of the segment lies in [{@code fromMillis}, {@code toMillis}). */
    private static boolean inside(LeafReader segment, long fromMillis, long toMillis) throws IOException {
        PointValues points = segment.getPointValues(Fields.EVENT_TIME);
        return points != null
                && LongPoint.decodeDimension(points.getMinPackedValue(), 0) >= fromMillis
                && LongPoint.decodeDimension(points.getMaxPackedValue(), 0) <= toMillis - 1;
    }

    /**
     * Counts the live documents holding {@code term} into {@code counts} by their runs, reading its postings and
     * nothing else: what a conjunction of exact terms matches in a segment inside the range where every other term
     * is in every document.
     */
    static void countPostings(LeafReader segment, Term term, Runs runs, long[] counts, Check deadline)
            throws IOException {
        PostingsEnum postings = segment.postings(term, PostingsEnum.NONE);
        if (postings == null) {
            return; // no document holds it
        }
        Bits live = segment.getLiveDocs();
        Counter counter = new Counter(runs, counts);
        int seen = 0;
        for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
            if (live == null || live.get(doc)) {
                counter.add(doc);
            }
            if ((++seen & 0xFFFF) == 0) {
                deadline.now();
            }
        }
    }

    /** Counts documents, in doc id order, into the buckets of their runs: one comparison each but at a run's start. */
    static final class Counter {
        private final Runs runs;
        private final long[] counts;
        /** The bucket of the current run (-1: outside the histogram) and the first doc past it. */
        private int runBucket = -1;

        private int runEnd = -1;

        Counter(Runs runs, long[] counts) {
            this.runs = runs;
            this.counts = counts;
        }

        void add(int doc) {
            if (doc >= runEnd) {
                int position = runs.position(doc);
                int b = runs.bucket(position);
                runBucket = b >= 0 && b < counts.length ? b : -1;
                runEnd = runs.end(position);
            }
            if (runBucket >= 0) {
                counts[runBucket]++;
            }
        }
    }

    /** Reads times at doc ids, reusing one doc-values iterator while they go forward. */
    static final class Probe {
        private final LeafReader segment;
        private NumericDocValues values;

        Probe(LeafReader segment) {
            this.segment = segment;
        }

        /** The time at {@code doc}; {@link Long#MIN_VALUE} when it has none (older than everything). */
        long at(int doc) throws IOException {
            if (values == null || values.docID() > doc) {
                values = DocValues.getNumeric(segment, Fields.EVENT_TIME);
            }
            return values.advanceExact(doc) ? values.longValue() : Long.MIN_VALUE;
        }
    }

    /**
     * Where the buckets lie in a segment, newest first: position 0 holds the documents at or after the histogram's
     * end, position 1 its last bucket, ..., position {@code buckets} its first, position {@code buckets + 1} those
     * before it; {@code starts[p]} is the first doc id of position {@code p} and {@code starts[buckets + 2]} the
     * segment's maxDoc.
     */
    static final class Runs {
        private final int[] starts;
        private final int buckets;

        Runs(int[] starts, int buckets) {
            this.starts = starts;
            this.buckets = buckets;
        }

        /** The position holding {@code doc}: the last whose start is at or before it (empty positions share one). */
        int position(int doc) {
            int lo = 1; // starts[0] is 0, at or before every doc
            int hi = starts.length - 1; // the segment's maxDoc, past every doc
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (starts[mid] > doc) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo - 1;
        }

        /** The bucket of a position: -1 before the histogram, {@code buckets} at or after its end. */
        int bucket(int position) {
            return buckets - position;
        }

        /** How many documents (deleted ones too) a bucket of the histogram holds. */
        int size(int bucket) {
            int position = buckets - bucket;
            return starts[position + 1] - starts[position];
        }

        /** The first doc id past a position. */
        int end(int position) {
            return starts[position + 1];
        }
    }

    /**
     * The runs of one grid, per segment, computed once for every histogram one searcher counts with that grid (a
     * grouped count asks for the same grid once per value).
     */
    static final class Memo {
        private Histogram grid;
        private final Map<Object, Runs> bySegment = new HashMap<>();

        synchronized Runs of(LeafReader segment, Histogram h) throws IOException {
            LeafReader.CacheHelper core = segment.getCoreCacheHelper();
            if (core == null) {
                return TimeSortedRuns.of(segment, h);
            }
            if (!h.equals(grid)) {
                grid = h;
                bySegment.clear();
            }
            Object key = core.getKey();
            if (!bySegment.containsKey(key)) {
                bySegment.put(key, TimeSortedRuns.of(segment, h));
            }
            return bySegment.get(key);
        }
    }
}
