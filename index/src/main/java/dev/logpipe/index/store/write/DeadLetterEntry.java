package dev.logpipe.index.store.write;

import java.time.Instant;
import java.util.Objects;

/**
 * One rejected record as the dead-letter topic holds it: reason code, detail, the (redacted) raw line when kept, and
 * the dead letter's JSON as the source. {@code id} is stable for a replayed dead letter (a hash of its content).
 */
public record DeadLetterEntry(
        String id,
        String tenant,
        String reason,
        String detail,
        String raw,
        Instant observedTime,
        byte[] source,
        int offset,
        int length) {
    public DeadLetterEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(observedTime, "observedTime");
        Objects.checkFromIndexSize(offset, length, source.length);
    }
}
