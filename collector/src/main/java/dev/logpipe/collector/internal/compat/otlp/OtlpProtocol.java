package dev.logpipe.collector.internal.compat.otlp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import dev.logpipe.collector.internal.ingest.IngestHandler.Answer;
import dev.logpipe.collector.internal.ingest.IngestResult;
import dev.logpipe.collector.internal.ingest.IngestRun;
import dev.logpipe.collector.internal.ingest.Protocol;
import dev.logpipe.collector.internal.ingest.RecordLines;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * {@code POST /v1/logs} (OTLP/HTTP, protobuf or JSON by Content-Type): one record per LogRecord. A complete request
 * answers 200 with an {@code ExportLogsServiceResponse}, whose {@code partial_success} counts the dead-lettered
 * records and says why the first was; a refusal answers a {@code google.rpc.Status} in the request's encoding (400
 * not retryable; 429/503 with Retry-After, which the OTLP exporters retry whole; the records taken before a stop
 * carry the same derived ids on the resend).
 */
public final class OtlpProtocol implements Protocol {
    /** The Content-Types of OTLP/HTTP. */
    public static final String PROTOBUF = "application/x-protobuf";

    public static final String JSON_TYPE = "application/json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean json;

    public OtlpProtocol(boolean json) {
        this.json = json;
    }

    /** The protocol of a request's Content-Type, or null when OTLP/HTTP has no such encoding. */
    public static OtlpProtocol forContentType(String contentType) {
        String t = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        if (t.startsWith(PROTOBUF)) {
            return new OtlpProtocol(false);
        }
        if (t.startsWith(JSON_TYPE)) {
            return new OtlpProtocol(true);
        }
        return null;
    }

    @Override
    public boolean textBody() {
        return !json;
    }

    @Override
    public String route() {
        return "otlp";
    }

    @Override
    public RecordLines.Opener format() {
        return json ? OtlpJsonLines::open : OtlpProtoLines::open;
    }

    @Override
    public Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds) {
        if (reason != null) {
            return refused(status, reason + "; resend the request", retryAfterSeconds, false);
        }
        IngestResult result = outcome.result();
        long rejected = result.deadLettered();
        String message = rejected == 0
                ? ""
                : rejected + " log records were rejected (dead-lettered); the first: "
                        + (result.errors().isEmpty()
                                ? ""
                                : "record " + result.errors().get(0).line() + ": "
                                        + result.errors().get(0).reason() + ": "
                                        + result.errors().get(0).detail());
        if (json) {
            ObjectNode n = JSON.createObjectNode();
            if (rejected > 0) {
                n.putObject("partialSuccess")
                        .put("rejectedLogRecords", Long.toString(rejected))
                        .put("errorMessage", message);
            }
            return Answer.json(200, n.toString(), 0, false);
        }
        return new Answer(
                200,
                PROTOBUF,
                rejected == 0
                        ? new byte[0]
                        : proto(out -> {
                            byte[] partial = proto(p -> {
                                p.writeInt64(1, rejected);
                                p.writeString(2, message);
                            });
                            out.writeByteArray(1, partial);
                        }),
                0,
                false);
    }

    @Override
    public Answer refused(int status, String reason, long retryAfterSeconds, boolean close) {
        int code = switch (status) {
            case 400, 413, 415 -> 3; // INVALID_ARGUMENT
            case 401 -> 16; // UNAUTHENTICATED
            case 408 -> 4; // DEADLINE_EXCEEDED
            case 429 -> 8; // RESOURCE_EXHAUSTED
            case 503 -> 14; // UNAVAILABLE
            default -> 13; // INTERNAL
        };
        if (json) {
            ObjectNode n = JSON.createObjectNode().put("code", code).put("message", reason);
            return Answer.json(status, n.toString(), retryAfterSeconds, close);
        }
        return new Answer(
                status,
                PROTOBUF,
                proto(out -> {
                    out.writeInt32(1, code);
                    out.writeString(2, reason);
                }),
                retryAfterSeconds,
                close);
    }

    private interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] proto(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            w.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
