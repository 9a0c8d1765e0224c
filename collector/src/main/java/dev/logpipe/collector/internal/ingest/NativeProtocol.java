package dev.logpipe.collector.internal.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.TreeMap;

/**
 * {@code POST /api/v1/logs}: NDJSON of schema-v3 records, or plain log lines, answers as docs/collector.md shows.
 * {@link #forContentType} picks how the body's lines are read.
 */
public final class NativeProtocol implements Protocol {
    /** Every line a schema-v3 record (no {@code Content-Type}, JSON and NDJSON types). */
    public static final NativeProtocol INSTANCE = new NativeProtocol(RecordLines.NDJSON);
    /** Every line a message ({@code text/plain}). */
    static final NativeProtocol TEXT = new NativeProtocol(TextLines.opener(TextLines.Mode.ALL));
    /** A line starting with <code>{</code> a record, any other a message (a form body: curl's default). */
    static final NativeProtocol TEXT_OR_RECORDS = new NativeProtocol(TextLines.opener(TextLines.Mode.NOT_JSON));

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RecordLines.Opener format;

    private NativeProtocol(RecordLines.Opener format) {
        this.format = format;
    }

    /**
     * How a body of this {@code Content-Type} (null: none) is read: {@code text/plain}, one message per line;
     * {@code application/x-www-form-urlencoded} (what {@code curl --data-binary} sends unless told), a record per line
     * that starts with <code>{</code> and a message per other line; anything else, NDJSON records.
     */
    public static NativeProtocol forContentType(String contentType) {
        if (contentType == null) {
            return INSTANCE;
        }
        String t = contentType.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("text/plain")) {
            return TEXT;
        }
        if (t.startsWith("application/x-www-form-urlencoded")) {
            return TEXT_OR_RECORDS;
        }
        return INSTANCE;
    }

    @Override
    public String route() {
        return "native";
    }

    @Override
    public RecordLines.Opener format() {
        return format;
    }

    @Override
    public IngestHandler.Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds) {
        if (reason == null) {
            return IngestHandler.Answer.json(200, body(outcome, null).toString(), 0, false);
        }
        int at = outcome.stoppedAtLine();
        String text = status == 429
                ? reason + "; lines before " + at + " were taken, resend from line " + at
                : reason + " at line " + at + "; the lines before it were taken, retry from there";
        return IngestHandler.Answer.json(status, body(outcome, text).toString(), retryAfterSeconds, false);
    }

    @Override
    public IngestHandler.Answer refused(int status, String reason, long retryAfterSeconds, boolean close) {
        ObjectNode n = JSON.createObjectNode();
        n.put("error", reason);
        return IngestHandler.Answer.json(status, n.toString(), retryAfterSeconds, close);
    }

    private static ObjectNode body(IngestRun.Outcome outcome, String error) {
        IngestResult result = outcome.result();
        ObjectNode body = JSON.createObjectNode();
        if (error != null) {
            body.put("error", error);
            body.put("resume_from_line", outcome.stoppedAtLine());
        }
        body.put("accepted", result.accepted());
        body.put("dead_lettered", result.deadLettered());
        body.put("stage", "DURABLE_IN_BROKER");
        ObjectNode redacted = body.putObject("redacted");
        new TreeMap<>(result.redactions()).forEach(redacted::put);
        body.put("field_collisions", result.fieldCollisions());
        ArrayNode errors = body.putArray("errors");
        for (IngestResult.DeadLetter d : result.errors()) {
            errors.addObject()
                    .put("line", d.line())
                    .put("reason", d.reason().name())
                    .put("detail", d.detail());
        }
        if (result.deadLettered() > result.errors().size()) {
            body.put("errors_truncated", true);
        }
        return body;
    }
}
