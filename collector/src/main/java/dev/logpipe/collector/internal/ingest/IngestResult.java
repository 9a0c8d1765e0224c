package dev.logpipe.collector.internal.ingest;

import java.util.BitSet;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one request became: how many records were handed to the records topic and to the dead-letter topic
 * (by reason), the first {@link #MAX_ERRORS} dead letters to report, the redactions by rule, how many field values of
 * accepted records were kept under a name of their own because their flattened name was taken
 * ({@code field_collisions}), and which lines were dead-lettered (one bit per line: a bulk answer reports every item).
 */
public record IngestResult(
        int accepted,
        int deadLettered,
        Map<Reason, Integer> deadLetteredByReason,
        List<DeadLetter> errors,
        Map<String, Integer> redactions,
        int fieldCollisions,
        Map<Reason, BitSet> deadLetteredLines) {
    /** At most this many per-line errors are listed in a response. */
    public static final int MAX_ERRORS = 100;

    public IngestResult {
        deadLetteredByReason = Map.copyOf(deadLetteredByReason);
        errors = List.copyOf(errors);
        redactions = Map.copyOf(redactions);
        EnumMap<Reason, BitSet> lines = new EnumMap<>(Reason.class);
        deadLetteredLines.forEach((r, b) -> lines.put(r, (BitSet) b.clone()));
        deadLetteredLines = Collections.unmodifiableMap(lines);
    }

    /** Why line {@code line} was dead-lettered, or null when it was not (every line, not only the listed errors). */
    public Reason deadLetterReason(int line) {
        for (Map.Entry<Reason, BitSet> e : deadLetteredLines.entrySet()) {
            if (e.getValue().get(line)) {
                return e.getKey();
            }
        }
        return null;
    }

    /** A line that is not published to the records topic, with why. {@code line} counts from 1. */
    public record DeadLetter(int line, Reason reason, String detail, String raw) {}

    public enum Reason {
        SCHEMA_INVALID,
        RECORD_TOO_LARGE,
        REDACTION_FAIL_CLOSED
    }
}
