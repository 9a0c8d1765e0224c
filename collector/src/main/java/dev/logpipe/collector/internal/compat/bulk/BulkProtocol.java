package dev.logpipe.collector.internal.compat.bulk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.logpipe.collector.internal.ingest.IngestHandler.Answer;
import dev.logpipe.collector.internal.ingest.IngestResult;
import dev.logpipe.collector.internal.ingest.IngestRun;
import dev.logpipe.collector.internal.ingest.Protocol;
import dev.logpipe.collector.internal.ingest.RecordLines;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code POST /_bulk} and {@code POST /{index}/_bulk}: one record per {@code index}/{@code create} action, answered in
 * the bulk format with a status per item (201 created; 400 or 413 for a dead-lettered one, with the reason) and
 * {@code errors:true} when any item failed, so that shippers retry only what failed. A request stopped by the rate
 * limit or the in-flight bound is answered 429/503 whole, in Elasticsearch's error shape: its items before the stop
 * are in the topic, and a resend derives the same record ids. One instance per request (it keeps the items).
 */
public final class BulkProtocol implements Protocol {
    private static final JsonFactory JSON = new JsonFactory();

    private final String defaultIndex;
    private final BulkItems items = new BulkItems();

    /** @param defaultIndex the {@code {index}} of the URL, or null for {@code /_bulk} */
    public BulkProtocol(String defaultIndex) {
        this.defaultIndex = defaultIndex;
    }

    @Override
    public String route() {
        return "bulk";
    }

    @Override
    public RecordLines.Opener format() {
        return (in, max, mayHold) -> new BulkLines(in, max, mayHold, defaultIndex, items);
    }

    /** Per item at most ~160 bytes (a listed error up to ~600), built in one buffer and copied once. */
    @Override
    public long answerBytes(IngestRun.Outcome outcome) {
        return 2 * (initialAnswerBytes() + 600L * outcome.result().errors().size());
    }

    private int initialAnswerBytes() {
        return (int) Math.min(Integer.MAX_VALUE - 64, 64 + 160L * items.size());
    }

    @Override
    public Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds) {
        if (reason != null) {
            return error(
                    status,
                    reason + "; the items before item " + outcome.stoppedAtLine() + " were taken, a resend "
                            + "of the whole request is de-duplicated",
                    retryAfterSeconds,
                    false);
        }
        IngestResult result = outcome.result();
        Map<Integer, IngestResult.DeadLetter> listed = new HashMap<>();
        for (IngestResult.DeadLetter d : result.errors()) {
            listed.put(d.line(), d);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(initialAnswerBytes());
        try (JsonGenerator g = JSON.createGenerator(bytes)) {
            g.writeStartObject();
            g.writeNumberField("took", 0);
            g.writeBooleanField("errors", result.deadLettered() > 0);
            g.writeArrayFieldStart("items");
            for (int n = 1; n <= items.size(); n++) {
                item(g, n, result.deadLetterReason(n), listed.get(n));
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Answer(200, "application/json", bytes.toByteArray(), 0, false);
    }

    private void item(JsonGenerator g, int n, IngestResult.Reason dead, IngestResult.DeadLetter detail)
            throws IOException {
        g.writeStartObject();
        g.writeObjectFieldStart(items.action(n));
        g.writeStringField("_index", items.index(n) == null ? "" : items.index(n));
        g.writeStringField("_id", items.id(n));
        if (dead == null) {
            g.writeNumberField("_version", 1);
            g.writeStringField("result", "created");
            g.writeObjectFieldStart("_shards");
            g.writeNumberField("total", 1);
            g.writeNumberField("successful", 1);
            g.writeNumberField("failed", 0);
            g.writeEndObject();
            g.writeNumberField("status", 201);
        } else {
            int status = dead == IngestResult.Reason.RECORD_TOO_LARGE ? 413 : 400;
            g.writeNumberField("status", status);
            g.writeObjectFieldStart("error");
            g.writeStringField(
                    "type",
                    switch (dead) {
                        case RECORD_TOO_LARGE -> "content_too_long_exception";
                        case REDACTION_FAIL_CLOSED -> "redaction_fail_closed_exception";
                        case SCHEMA_INVALID -> "document_parsing_exception";
                    });
            g.writeStringField(
                    "reason",
                    dead.name() + ": "
                            + (detail != null
                                    ? detail.detail()
                                    : "dead-lettered (the reasons of the first " + IngestResult.MAX_ERRORS
                                            + " are listed)"));
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    @Override
    public Answer refused(int status, String reason, long retryAfterSeconds, boolean close) {
        return error(status, reason, retryAfterSeconds, close);
    }

    /** Elasticsearch's error shape: {@code {"error":{"root_cause":[..],"type":..,"reason":..},"status":N}}. */
    public static Answer errorFor(int status, String reason) {
        return error(status, reason, 0, false);
    }

    static Answer error(int status, String reason, long retryAfterSeconds, boolean close) {
        String type = switch (status) {
            case 400 -> "illegal_argument_exception";
            case 401 -> "security_exception";
            case 408 -> "timeout_exception";
            case 413 -> "content_too_long_exception";
            case 415 -> "media_type_header_exception";
            case 429 -> "es_rejected_execution_exception";
            default -> status >= 500 ? "unavailable_shards_exception" : "status_exception";
        };
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(bytes)) {
            g.writeStartObject();
            g.writeObjectFieldStart("error");
            g.writeArrayFieldStart("root_cause");
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("reason", reason);
            g.writeEndObject();
            g.writeEndArray();
            g.writeStringField("type", type);
            g.writeStringField("reason", reason);
            g.writeEndObject();
            g.writeNumberField("status", status);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Answer(status, "application/json", bytes.toByteArray(), retryAfterSeconds, close);
    }
}
