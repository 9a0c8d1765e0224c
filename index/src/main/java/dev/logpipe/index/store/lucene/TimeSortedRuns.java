package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import java.io.IOException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * A segment sorted newest first by {@code event_time} (the index sort, {@link IndexSchema#indexSort()}) holds the
 * documents of any time interval as one run of doc ids, so a time bucket's end is found by a binary search over the
 * doc values instead of by reading every document's time.
 */
final class TimeSortedRuns {
    private TimeSortedRuns() {}

    /** True when the segment is sorted by event time, newest first, and every document has one. */
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
        return points != null && points.getDocCount() == segment.maxDoc();
    }

    /**
     * The first document at or after {@code from} whose event time is before {@code time}, or the segment's maxDoc:
     * every document in between is at or after it. Only for a segment that {@link #applies}.
     */
    static int firstBefore(LeafReader segment, int from, long time) throws IOException {
        int lo = from;
        int hi = segment.maxDoc();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            NumericDocValues times = DocValues.getNumeric(segment, Fields.EVENT_TIME); // forward only: one per probe
            if (times.advanceExact(mid) && times.longValue() >= time) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
