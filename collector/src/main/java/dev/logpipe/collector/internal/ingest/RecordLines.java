package dev.logpipe.collector.internal.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongPredicate;

/**
 * A request body turned into a sequence of items, each one schema-v3 record as one line of JSON (the native NDJSON
 * body is such a sequence already; the compatible wire formats are decoded into one). Every item then goes through
 * the same rate limit, memory reservation, validation, redaction and dead-letter path ({@link IngestRun}). An item
 * can also be too long (its bytes never held) or refused by the decoder with a reason (it is dead-lettered).
 * Not thread-safe: one request, one thread. Read failures surface as {@link BodyException} with the status to answer
 * (429 and 503 stop the run with what was taken).
 */
public interface RecordLines {
    /** Opens a decoded body. {@code mayHold} is asked before the decoder's memory grows, with all it will hold. */
    interface Opener {
        RecordLines open(InputStream decoded, int maxRecordBytes, LongPredicate mayHold) throws IOException;
    }

    /** The native NDJSON body: one record per line. */
    Opener NDJSON =
            (in, max, mayHold) -> new LineReader(in, max, capacity -> mayHold.test(LineReader.CHUNK + capacity));

    /** Moves to the next item; false at the end of the body. */
    boolean next() throws IOException;

    byte[] array();

    int offset();

    /** The item's record line (blank: skipped, counted neither accepted nor dead-lettered). */
    int length();

    /** The item's length in bytes when it was longer than {@code maxRecordBytes} (its bytes are gone), else 0. */
    long tooLong();

    /** Why the decoder refused the item (dead-lettered {@code SCHEMA_INVALID} with its raw bytes), or null. */
    default String refused() {
        return null;
    }

    /** The item's number from 1: the line in errors, part of a derived {@code record_id}. */
    int number();

    /** Bytes the decoder holds now (reserved with the rest of the request). */
    long heldBytes();
}
