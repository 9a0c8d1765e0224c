package dev.logpipe.index.store.write;

import dev.logpipe.record.LogRecord;
import java.time.Instant;
import java.util.Objects;

/**
 * One record to write: the decoded record, the times it is indexed under (event time after any clamping), and its
 * source line as accepted ({@code source[offset, offset + length)}, not copied: leave the bytes alone until the
 * write returns).
 */
public record IndexRecord(
        LogRecord record, Instant eventTime, Instant observedTime, byte[] source, int offset, int length) {
    public IndexRecord {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(record.recordId(), "record.recordId");
        Objects.requireNonNull(eventTime, "eventTime");
        Objects.requireNonNull(observedTime, "observedTime");
        Objects.checkFromIndexSize(offset, length, source.length);
    }
}
