package dev.logpipe.archive.format;

import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.time.Instant;
import java.util.Objects;

/**
 * One record as an archive keeps it: its merge key (event time as indexed, record id), its observed time, the labels
 * a block is pruned on, and its source exactly as accepted. Optional labels are null when absent.
 */
public record ArchivedRecord(
        long eventTimeMillis,
        long observedTimeMillis,
        String recordId,
        Level level,
        String service,
        String instanceId,
        String region,
        String traceId,
        String spanId,
        String source) {
    public ArchivedRecord {
        Objects.requireNonNull(recordId, "recordId");
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(source, "source");
    }

    /**
     * The record of a decoded source; {@code eventTime} is the time it is indexed under (after any clamping), the
     * observed time is the record's own (its event time when absent).
     */
    public static ArchivedRecord of(LogRecord decoded, Instant eventTime, String source) {
        Instant observed = decoded.observedTime() == null ? eventTime : decoded.observedTime();
        return new ArchivedRecord(
                eventTime.toEpochMilli(),
                observed.toEpochMilli(),
                decoded.recordId(),
                decoded.level(),
                decoded.service(),
                decoded.instanceId(),
                decoded.region(),
                decoded.traceId(),
                decoded.spanId(),
                source);
    }
}
