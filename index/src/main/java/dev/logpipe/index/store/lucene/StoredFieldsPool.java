package dev.logpipe.index.store.lucene;

import java.io.IOException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.index.CodecReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.StoredFields;

/**
 * Stored-fields readers kept per segment core between searches. A new {@link StoredFields} clones its inputs and grows
 * its decompression buffers from nothing, which for a page of sources costs more than the reading (and most of a
 * search's garbage); a pooled one keeps them. A reader is used by one thread at a time (taken, then given back), at
 * most {@link #PER_SEGMENT} are kept per segment, and a segment's are dropped when its core closes. A caller reading
 * many documents of one segment in order takes Lucene's merge instance instead ({@link #sequential}), never pooled.
 */
final class StoredFieldsPool {
    static final int PER_SEGMENT = 4;
    private static final Map<Object, Queue<StoredFields>> POOLS = new ConcurrentHashMap<>();

    private StoredFieldsPool() {}

    /**
     * A stored-fields reader for many documents of one segment read in doc order (the archiver reading a whole day):
     * Lucene's merge instance, which decompresses each block once where the pooled reader decompresses a block's start
     * again for every document. Used by this thread only and dropped after the call.
     */
    static StoredFields sequential(LeafReader segment) throws IOException {
        if (segment instanceof CodecReader codec) {
            StoredFieldsReader fields = codec.getFieldsReader(); // a clone each call
            if (fields != null) {
                return fields.getMergeInstance();
            }
        }
        return segment.storedFields();
    }

    /** A stored-fields reader of the segment for the caller alone; {@link #give} it back when done. */
    static StoredFields take(LeafReader leaf) throws IOException {
        Queue<StoredFields> q = pool(leaf);
        StoredFields s = q == null ? null : q.poll();
        return s != null ? s : leaf.storedFields();
    }

    static void give(LeafReader leaf, StoredFields s) {
        Queue<StoredFields> q = pool(leaf);
        if (q != null && q.size() < PER_SEGMENT) {
            q.offer(s);
        }
    }

    private static Queue<StoredFields> pool(LeafReader leaf) {
        IndexReader.CacheHelper h = leaf.getCoreCacheHelper();
        if (h == null) {
            return null;
        }
        Queue<StoredFields> q = POOLS.get(h.getKey());
        if (q != null) {
            return q;
        }
        Queue<StoredFields> created = new ConcurrentLinkedQueue<>();
        q = POOLS.putIfAbsent(h.getKey(), created);
        if (q == null) {
            h.addClosedListener(POOLS::remove); // the core is open: the caller holds a reader of it
            q = created;
        }
        return q;
    }

    /** Segments with pooled readers (for tests). */
    static int segments() {
        return POOLS.size();
    }
}
