package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher.Key;
import dev.logpipe.index.store.read.ShardSearcher.Keys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * The keys of a whole shard in {@code OLDEST_FIRST} order (event time ascending, record id descending) without a sort.
 * Each segment is sorted by the index sort (newest first, id ascending), its exact reverse, so a segment read from its
 * last document back is in order; the segments are merged by their next key. The collector this replaces visits every
 * document of the shard for each page and keeps a heap of the page; this reads each document's time and id once.
 *
 * <p>Taken only where it gives the collector's keys: a match-all query of a records shard with no filter, every
 * segment sorted by the index sort, holding the query's tenant only and event times inside the query's range (so the
 * total is every live document, exact), and no deadline (the archiver reading a day). Otherwise {@link #keys} answers
 * empty and the collector runs. A document without a time or an id also sends it back to the collector.
 */
final class OldestFirstWalk {
    /** Documents of one segment read forward at a time, then handed out backwards. */
    static final int CHUNK = 4_096;

    private OldestFirstWalk() {}

    /** Whether the walk answers for this query (the segments are checked by {@link #keys}). */
    static boolean applies(ShardQuery q, long deadlineNanos) {
        return deadlineNanos == Long.MAX_VALUE
                && q.filters().isEmpty()
                && q.query().root() instanceof QueryNode.MatchAll;
    }

    /** Up to {@code limit} keys after {@code after} (null: from the oldest), or empty when a segment does not allow it. */
    static Optional<Keys> keys(IndexReader reader, ShardQuery q, After after, int limit) throws IOException {
        List<LeafReaderContext> leaves = reader.leaves();
        for (LeafReaderContext leaf : leaves) {
            if (!walkable(leaf.reader(), q)) {
                return Optional.empty();
            }
        }
        IdBytes afterId = after == null ? null : IdBytes.of(after.recordId());
        PriorityQueue<Segment> next = new PriorityQueue<>();
        for (LeafReaderContext leaf : leaves) {
            Segment s = new Segment(leaf);
            int end = after == null ? leaf.reader().maxDoc() : s.firstNotAfter(after.eventTimeMillis(), afterId);
            if (end < 0 || !s.fill(end)) {
                return Optional.empty();
            }
            if (s.hasNext()) {
                next.add(s);
            }
        }
        List<Key> keys = new ArrayList<>(Math.min(limit, reader.numDocs()));
        while (keys.size() < limit && !next.isEmpty()) {
            Segment s = next.poll();
            keys.add(s.take());
            if (!s.advance()) {
                return Optional.empty();
            }
            if (s.hasNext()) {
                next.add(s);
            }
        }
        return Optional.of(new Keys(keys, reader.numDocs(), true));
    }

    private static boolean walkable(LeafReader segment, ShardQuery q) throws IOException {
        if (!Objects.equals(segment.getMetaData().getSort(), IndexSchema.indexSort())) {
            return false;
        }
        if (segment.maxDoc() == 0) {
            return true;
        }
        if (segment.docFreq(new Term(Fields.TENANT_ID, q.tenant())) != segment.maxDoc()) {
            return false;
        }
        PointValues times = segment.getPointValues(Fields.EVENT_TIME);
        if (times == null || times.getDocCount() != segment.maxDoc()) {
            return false;
        }
        long min = LongPoint.decodeDimension(times.getMinPackedValue(), 0);
        long max = LongPoint.decodeDimension(times.getMaxPackedValue(), 0);
        return min >= q.fromMillis() && max < q.toMillis();
    }

    /**
     * One segment's place in the walk: the documents {@code [0, end)} are still to come, newest first, so the next is
     * {@code end - 1}; a chunk of them is held with its times and ids.
     */
    private static final class Segment implements Comparable<Segment> {
        private final LeafReader reader;
        private final int docBase;
        private final Bits live;
        private final long[] times = new long[CHUNK];
        private final IdBytes[] ids = new IdBytes[CHUNK];
        private int chunkStart;
        /** The next document to hand out, counted down; below {@code chunkStart} the next chunk is read. */
        private int at;

        Segment(LeafReaderContext leaf) {
            this.reader = leaf.reader();
            this.docBase = leaf.docBase;
            this.live = reader.getLiveDocs();
        }

        /**
         * The first document (in the segment's order) whose key is not after {@code (time, id)} in {@code OLDEST_FIRST}
         * order: those before it come after the cursor. Binary search, -1 when a document lacks a value.
         */
        int firstNotAfter(long time, IdBytes id) throws IOException {
            int lo = 0;
            int hi = reader.maxDoc();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                NumericDocValues t = DocValues.getNumeric(reader, Fields.EVENT_TIME);
                SortedDocValues r = DocValues.getSorted(reader, Fields.RECORD_ID);
                if (!t.advanceExact(mid) || !r.advanceExact(mid)) {
                    return -1;
                }
                long mt = t.longValue();
                boolean afterCursor = mt > time || (mt == time && idOf(r).compareTo(id) < 0);
                if (afterCursor) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** Reads the chunk that ends at {@code end} (exclusive); false when a document lacks a value. */
        boolean fill(int end) throws IOException {
            chunkStart = Math.max(0, end - CHUNK);
            NumericDocValues t = DocValues.getNumeric(reader, Fields.EVENT_TIME);
            SortedDocValues r = DocValues.getSorted(reader, Fields.RECORD_ID);
            for (int doc = chunkStart; doc < end; doc++) {
                if (live != null && !live.get(doc)) {
                    ids[doc - chunkStart] = null;
                    continue;
                }
                if (!t.advanceExact(doc) || !r.advanceExact(doc)) {
                    return false;
                }
                times[doc - chunkStart] = t.longValue();
                ids[doc - chunkStart] = idOf(r);
            }
            at = end - 1;
            return skipDeleted();
        }

        boolean hasNext() {
            return at >= 0;
        }

        Key take() {
            int i = at - chunkStart;
            Key k = new Key(times[i], ids[i], docBase + at);
            ids[i] = null;
            at--;
            return k;
        }

        /** Moves to the next live document, reading the chunk before when this one is used up. */
        boolean advance() throws IOException {
            return skipDeleted();
        }

        private boolean skipDeleted() throws IOException {
            while (at >= 0) {
                if (at < chunkStart) {
                    return fill(at + 1);
                }
                if (ids[at - chunkStart] != null) {
                    return true;
                }
                at--;
            }
            return true;
        }

        private static IdBytes idOf(SortedDocValues r) throws IOException {
            BytesRef b = r.lookupOrd(r.ordValue());
            return IdBytes.copyOf(b.bytes, b.offset, b.length);
        }

        @Override
        public int compareTo(Segment o) {
            int i = at - chunkStart;
            int j = o.at - o.chunkStart;
            int byTime = Long.compare(times[i], o.times[j]);
            return byTime != 0 ? byTime : o.ids[j].compareTo(ids[i]);
        }
    }
}
