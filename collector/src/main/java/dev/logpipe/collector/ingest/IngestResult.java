package dev.logpipe.collector.ingest;

import java.util.List;
import java.util.Map;

/**
 * What one request became: how many records were handed to the records topic and to the dead-letter topic
 * (by reason), the first {@link #MAX_ERRORS} dead letters to report, and the redactions by rule.
 */
public record IngestResult(int accepted, int deadLettered, Map<Reason, Integer> deadLetteredByReason,
                           List<DeadLetter> errors, Map<String, Integer> redactions) {
    /** At most this many per-line errors are listed in a response. */
    public static final int MAX_ERRORS = 100;

    public IngestResult {
        deadLetteredByReason = Map.copyOf(deadLetteredByReason);
        errors = List.copyOf(errors);
        redactions = Map.copyOf(redactions);
    }

    /** A line that is not published to the records topic, with why. {@code line} counts from 1. */
    public record DeadLetter(int line, Reason reason, String detail, String raw) {
    }

    public enum Reason { SCHEMA_INVALID, RECORD_TOO_LARGE, REDACTION_FAIL_CLOSED }
}
