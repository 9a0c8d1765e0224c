package dev.logpipe.collector.internal.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.TreeMap;

/** {@code POST /api/v1/logs}: NDJSON of schema-v3 records, answers as docs/collector.md shows. */
public final class NativeProtocol implements Protocol {
    public static final NativeProtocol INSTANCE = new NativeProtocol();
    private static final ObjectMapper JSON = new ObjectMapper();

    private NativeProtocol() {}

    @Override
    public String route() {
        return "native";
    }

    @Override
    public RecordLines.Opener format() {
        return RecordLines.NDJSON;
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
