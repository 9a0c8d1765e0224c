package dev.logpipe.archive.tier;

import dev.logpipe.index.store.write.IndexRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Records gathered for one write into a Lucene store (a restore into the query's cache or into the hot tier): full at
 * {@link #MAX_RECORDS} records or {@link #MAX_BYTES} of sources, whichever comes first, so a batch of large records
 * holds as little memory as one of small ones.
 */
final class RecordBatch {
    static final int MAX_RECORDS = 2000;
    static final long MAX_BYTES = 8L << 20;

    private List<IndexRecord> records = new ArrayList<>();
    private long bytes;

    /** Adds a record; true when the batch is now full. */
    boolean add(IndexRecord r) {
        records.add(r);
        bytes += r.length();
        return records.size() >= MAX_RECORDS || bytes >= MAX_BYTES;
    }

    boolean isEmpty() {
        return records.isEmpty();
    }

    /** The records gathered, the batch starting empty again. */
    List<IndexRecord> take() {
        List<IndexRecord> out = records;
        records = new ArrayList<>();
        bytes = 0;
        return out;
    }
}
