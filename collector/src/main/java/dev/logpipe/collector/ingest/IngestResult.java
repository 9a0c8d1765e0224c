package dev.logpipe.collector.ingest;

import java.util.List;
import java.util.Map;

/**
 * What one request becomes: Kafka messages of accepted records (each NDJSON, one partition key), dead letters,
 * and the per-line errors to report. {@code redactions} counts matches by rule.
 */
public record IngestResult(List<Message> messages, int accepted, List<DeadLetter> deadLetters,
                           Map<String, Integer> redactions) {
    public IngestResult {
        messages = List.copyOf(messages);
        deadLetters = List.copyOf(deadLetters);
        redactions = Map.copyOf(redactions);
    }

    /** One Kafka message: {@code records} schema-v3 records as NDJSON, all with the same key. */
    public record Message(String key, byte[] value, int records) {
    }

    /** A line that is not published to the records topic, with why. {@code line} counts from 1. */
    public record DeadLetter(int line, Reason reason, String detail, String raw) {
    }

    public enum Reason { SCHEMA_INVALID, RECORD_TOO_LARGE, REDACTION_FAIL_CLOSED }
}
