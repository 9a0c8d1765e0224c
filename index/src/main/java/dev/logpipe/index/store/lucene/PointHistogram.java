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
     * (nothing added) otherwise: the caller counts the segment with the collector.
     */
    static boolean count(LeafReader leaf, String tenant, long fromMillis, long toMillis, Histogram h, long[] counts)
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
        walk(times.getPointTree(), b);
        if (leaf.numDocs() != maxDoc) {
            takeOffDeleted(leaf, b);
        }
        return true;
    }

    private static void walk(PointValues.PointTree cell, Buckets b) throws IOException {
        long min = LongPoint.decodeDimension(cell.getMinPackedValue(), 0);
        long max = LongPoint.decodeDimension(cell.getMaxPackedValue(), 0);
        if (max < b.lo || min > b.hi) {
            return;
        }
        if (min >= b.lo && max <= b.hi) {
            long first = b.bucket(min);
            if (first == b.bucket(max)) {
                if (first >= 0 && first < b.counts.length) {
                    b.counts[(int) first] += cell.size();
                }
                return;
            }
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
                    b.add(values.longValue(), -1);
                }
            }
        }
    }

    /** The buckets being counted, and the visitor of the leaf cells that must be read value by value. */
    private static final class Buckets implements PointValues.IntersectVisitor {
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

        long bucket(long t) {
            return Math.floorDiv(t - start, interval);
        }

        void add(long t, int n) {
            if (t < lo || t > hi) {
                return;
            }
            long i = bucket(t);
            if (i >= 0 && i < counts.length) {
                counts[(int) i] += n;
            }
        }

        @Override
        public void visit(int docID) {
            throw new IllegalStateException("a leaf cell of the histogram is read with its values");
        }

        @Override
        public void visit(int docID, byte[] packedValue) {
            add(LongPoint.decodeDimension(packedValue, 0), 1);
        }

        @Override
        public PointValues.Relation compare(byte[] minPackedValue, byte[] maxPackedValue) {
            return PointValues.Relation.CELL_CROSSES_QUERY;
        }
    }
}
