package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import java.io.IOException;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.util.Bits;

/**
 * A match-all time histogram of one whole segment counted from its {@code event_time} points tree instead of document
 * by document: a cell of the tree whose times all fall in one bucket (and inside the range) adds its size without a
 * value being read, a cell wholly outside adds nothing, and only the leaf cells a bucket boundary or a range end cuts
 * through are read value by value. Deleted documents (still in the tree) are then read from doc values and taken off.
 * The counts equal the collector's ({@link LuceneAggregations#histogram}) for a match-all query.
 */
final class PointHistogram {
    private PointHistogram() {}

    /**
     * Adds the segment's matches of a match-all query for {@code tenant} in [{@code fromMillis}, {@code toMillis}) to
     * {@code counts}, when that is exact: every document is the tenant's and has exactly one event time. Returns false
     * (nothing added) otherwise: the caller counts the segment with the collector. A sorted segment wholly inside the
     * range is counted from its runs ({@link TimeSortedRuns}), which the searcher's other histograms with the same grid
     * then reuse.
     */
    static boolean count(
            LeafReader leaf,
            String tenant,
            long fromMillis,
            long toMillis,
            Histogram h,
            long[] counts,
            TimeSortedRuns.Memo runs)
            throws IOException {
        int maxDoc = leaf.maxDoc();
        if (maxDoc == 0) {
            return true;
        }
        if (leaf.docFreq(new Term(Fields.TENANT_ID, tenant)) != maxDoc) {
            return false;
        }
        PointValues times = leaf.getPointValues(Fields.EVENT_TIME);
        if (times == null || times.getDocCount() != maxDoc || times.size() != maxDoc) {
            return false;
        }
        Buckets b = new Buckets(fromMillis, toMillis - 1, h.startMillis(), h.intervalMillis(), counts);
        boolean inside = LongPoint.decodeDimension(times.getMinPackedValue(), 0) >= fromMillis
                && LongPoint.decodeDimension(times.getMaxPackedValue(), 0) <= toMillis - 1;
        TimeSortedRuns.Runs r = inside ? runs.of(leaf, h) : null;
        if (r != null) {
            for (int k = 0; k < counts.length; k++) {
                counts[k] += r.size(k);
            }
        } else {
            walk(times.getPointTree(), b);
        }
        if (leaf.numDocs() != maxDoc) {
            takeOffDeleted(leaf, b);
        }
        return true;
    }

    /**
     * Adds the points of {@code cell} to {@code b}: a cell whose lowest and highest values have one key adds its size
     * under that key without a value being read; only leaf cells whose values have several keys are read value by value.
     */
    private static void walk(PointValues.PointTree cell, Buckets b) throws IOException {
        long first = b.key(LongPoint.decodeDimension(cell.getMinPackedValue(), 0));
        if (first == b.key(LongPoint.decodeDimension(cell.getMaxPackedValue(), 0))) {
            b.add(first, cell.size());
            return;
        }
        if (cell.moveToChild()) {
            do {
                walk(cell, b);
            } while (cell.moveToSibling());
            cell.moveToParent();
        } else {
            cell.visitDocValues(b);
        }
    }

    private static void takeOffDeleted(LeafReader leaf, Buckets b) throws IOException {
        Bits live = leaf.getLiveDocs();
        NumericDocValues values = DocValues.getNumeric(leaf, Fields.EVENT_TIME);
        int left = leaf.maxDoc() - leaf.numDocs();
        for (int doc = 0; doc < leaf.maxDoc() && left > 0; doc++) {
            if (!live.get(doc)) {
                left--;
                if (values.advanceExact(doc)) {
                    b.add(b.key(values.longValue()), -1);
                }
            }
        }
    }

    /**
     * The histogram's buckets inside [lo, hi]: a time's key is its bucket held to [-1, buckets] (every time before the
     * histogram shares a key, as does every time after it); a time outside the range has the key of its side.
     */
    private static final class Buckets implements PointValues.IntersectVisitor {
        private static final long BELOW_RANGE = Long.MIN_VALUE;
        private static final long ABOVE_RANGE = Long.MAX_VALUE;
        final long lo;
        final long hi;
        final long start;
        final long interval;
        final long[] counts;

        Buckets(long lo, long hi, long start, long interval, long[] counts) {
            this.lo = lo;
            this.hi = hi;
            this.start = start;
            this.interval = interval;
            this.counts = counts;
        }

        /** The key of a time; never decreasing as times grow. */
        long key(long t) {
            if (t < lo) {
                return BELOW_RANGE;
            }
            if (t > hi) {
                return ABOVE_RANGE;
            }
            return Math.max(-1, Math.min(counts.length, Math.floorDiv(t - start, interval)));
        }

        void add(long key, long n) {
            if (key >= 0 && key < counts.length) {
                counts[(int) key] += n;
            }
        }

        @Override
        public void visit(int docID) {
            throw new IllegalStateException("a leaf cell of the histogram is read with its values");
        }

        @Override
        public void visit(int docID, byte[] packedValue) {
            add(key(LongPoint.decodeDimension(packedValue, 0)), 1);
        }

        @Override
        public PointValues.Relation compare(byte[] minPackedValue, byte[] maxPackedValue) {
            return PointValues.Relation.CELL_CROSSES_QUERY;
        }
    }
}
