package dev.logpipe.collector.internal.compat.loki;

import dev.logpipe.collector.internal.ingest.IngestHandler.Answer;
import dev.logpipe.collector.internal.ingest.IngestResult;
import dev.logpipe.collector.internal.ingest.IngestRun;
import dev.logpipe.collector.internal.ingest.Protocol;
import dev.logpipe.collector.internal.ingest.RecordLines;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * {@code POST /loki/api/v1/push}: snappy protobuf ({@code application/x-protobuf}) or JSON, one record per entry.
 * Answers as Loki does: {@code 204} when every entry was taken; {@code 400} with the reason in plain text when some
 * were rejected (those are dead-lettered, the others are in the topic); a refusal is its status with the reason
 * as text (429/503 with Retry-After, which Promtail and Alloy retry).
 */
public final class LokiProtocol implements Protocol {
    private final boolean json;
    private final long maxDecodedBytes;

    public LokiProtocol(boolean json, long maxDecodedBytes) {
        this.json = json;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /** The protocol of a request's Content-Type (protobuf unless it says JSON, as Loki reads it). */
    public static LokiProtocol forContentType(String contentType, long maxDecodedBytes) {
        boolean json =
                contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/json");
        return new LokiProtocol(json, maxDecodedBytes);
    }

    @Override
    public boolean textBody() {
        return !json;
    }

    @Override
    public String route() {
        return "loki";
    }

    @Override
    public RecordLines.Opener format() {
        return json
                ? LokiJsonLines::open
                : (in, max, mayHold) -> LokiProtoLines.open(in, max, maxDecodedBytes, mayHold);
    }

    @Override
    public Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds) {
        if (reason != null) {
            return refused(status, reason + "; resend the push", retryAfterSeconds, false);
        }
        IngestResult r = outcome.result();
        if (r.deadLettered() == 0) {
            return new Answer(204, "text/plain; charset=utf-8", new byte[0], 0, false);
        }
        IngestResult.DeadLetter first = r.errors().get(0);
        return refused(
                400,
                r.deadLettered() + " of " + (r.accepted() + r.deadLettered()) + " entries were rejected "
                        + "(dead-lettered; the other " + r.accepted() + " were taken); first: entry " + first.line()
                        + ": "
                        + first.reason() + ": " + first.detail(),
                0,
                false);
    }

    @Override
    public Answer refused(int status, String reason, long retryAfterSeconds, boolean close) {
        return new Answer(
                status,
                "text/plain; charset=utf-8",
                (reason + "\n").getBytes(StandardCharsets.UTF_8),
                retryAfterSeconds,
                close);
    }
}
