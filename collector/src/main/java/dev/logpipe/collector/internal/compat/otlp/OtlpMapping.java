package dev.logpipe.collector.internal.compat.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.internal.compat.RecordTree;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;

/**
 * What OTLP's log data model becomes in a schema-v3 record (docs/ingest.md#otlp), shared by the protobuf and the
 * JSON decoder: resource attributes {@code service.name}, {@code service.instance.id}, {@code cloud.region} are the
 * top-level fields and the others {@code fields."resource.<key>"}; the scope is {@code otel.scope.name}/{@code
 * .version}; the severity number is the level (its text when the number is unset); {@code time_unix_nano} (else the
 * observed time) is {@code event_time}; the trace and span ids in hex; a string body is the message (any other body
 * its JSON); the record's attributes are fields under their own names.
 */
final class OtlpMapping {
    private OtlpMapping() {}

    /** The level of an OTLP severity number (1-24); null for 0 (unspecified) or out of range. */
    static String level(long severityNumber) {
        if (severityNumber < 1 || severityNumber > 24) {
            return null;
        }
        return new String[] {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}[(int) (severityNumber - 1) / 4];
    }

    static void resource(RecordTree r, ObjectNode attributes) {
        if (attributes == null) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = attributes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String top = switch (e.getKey()) {
                case "service.name" -> "service";
                case "service.instance.id" -> "instance_id";
                case "cloud.region" -> "region";
                default -> null;
            };
            if (top != null && e.getValue().isValueNode()) {
                r.top(top, e.getValue().asText());
            } else {
                r.field("resource." + e.getKey(), e.getValue());
            }
        }
    }

    static void scope(RecordTree r, String name, String version) {
        if (name != null && !name.isEmpty()) {
            r.field("otel.scope.name", name);
        }
        if (version != null && !version.isEmpty()) {
            r.field("otel.scope.version", version);
        }
    }

    static void times(RecordTree r, long timeUnixNano, long observedUnixNano) {
        long t = timeUnixNano != 0 ? timeUnixNano : observedUnixNano;
        if (t != 0) {
            r.eventTime(Instant.ofEpochSecond(
                    Long.divideUnsigned(t, 1_000_000_000L), Long.remainderUnsigned(t, 1_000_000_000L)));
        }
    }

    static void severity(RecordTree r, long number, String text) {
        r.top("level", level(number));
        r.top("level", text);
        if (number != 0) {
            r.field("otel.severity_number", number);
        }
        if (text != null && !text.isEmpty()) {
            r.field("otel.severity_text", text);
        }
    }

    static void body(RecordTree r, JsonNode body) {
        String text = body == null ? null : RecordTree.text(body);
        r.top("message", text == null ? "" : text);
        if (text == null || text.isEmpty()) {
            r.forceMessage("");
        }
    }

    static void attributes(RecordTree r, ObjectNode attributes) {
        if (attributes == null) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = attributes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            r.field(e.getKey(), e.getValue());
        }
    }

    static String hex(byte[] id) {
        if (id == null || id.length == 0) {
            return null;
        }
        boolean zero = true;
        for (byte b : id) {
            zero &= b == 0;
        }
        return zero ? null : HexFormat.of().formatHex(id);
    }
}
