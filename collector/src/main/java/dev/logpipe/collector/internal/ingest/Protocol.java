package dev.logpipe.collector.internal.ingest;

/**
 * One ingest route's wire format: how its body becomes record lines, and how its answers look. Every route shares
 * the rest of the request pipeline ({@link IngestHandler}: credential, caps, rate limit, in-flight bound, body
 * pacing and caps, validation, redaction, dead letters, acks=all); only the decoding and the answer shape differ.
 */
public interface Protocol {
    /** The route's name in metrics ({@code native}, {@code bulk}, {@code otlp}, {@code loki}). */
    String route();

    /** Whether the body is text (NDJSON, JSON): a UTF-16/32 byte-order mark is refused. False for binary formats. */
    default boolean textBody() {
        return true;
    }

    /** How the decoded body is split into records. */
    RecordLines.Opener format();

    /**
     * The answer to a run that read its body: complete ({@code status} 200), or stopped at the rate limit (429) or
     * the in-flight bound (503) after {@code outcome.stoppedAtLine() - 1} items were taken.
     *
     * @param reason null when complete; else why it stopped and when to retry
     */
    IngestHandler.Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds);

    /**
     * The memory the answer to a complete run will take, reserved before it is built (a bulk answer lists every
     * item); 0 for a small answer.
     */
    default long answerBytes(IngestRun.Outcome outcome) {
        return 0;
    }

    /** A refusal of the whole request (nothing of it, or not all of it, is claimed) in this format's shape. */
    IngestHandler.Answer refused(int status, String reason, long retryAfterSeconds, boolean close);
}
