package dev.logpipe.collector.internal.compat.otlp;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.internal.compat.DecodedLines;
import dev.logpipe.collector.internal.compat.JsonSlices;
import dev.logpipe.collector.internal.compat.RecordTree;
import dev.logpipe.collector.internal.compat.WholeBody;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * An OTLP {@code ExportLogsServiceRequest} in OTLP/JSON (lowerCamelCase names, int64 as strings, ids in hex) as one
 * record per {@code logRecords} element. The body is held whole but never parsed into one tree: a streaming parser
 * finds each element's extent, and only the current resource, scope and one log record are parsed into trees (each
 * reserved before it is built). The whole document's syntax is checked first (a broken body is a 400).
 */
final class OtlpJsonLines extends DecodedLines {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final JsonSlices json;
    private final int maxRecordBytes;
    private final JsonSlices.Cursor top;
    private JsonSlices.Cursor resourceLogs;
    private JsonSlices.Cursor scopeLogs;
    private ObjectNode resource;
    private String scopeName;
    private String scopeVersion;

    OtlpJsonLines(byte[] body, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        this.json = new JsonSlices(body, mayHold, "an OTLP/JSON ExportLogsServiceRequest");
        this.maxRecordBytes = maxRecordBytes;
        this.top = json.array(json.whole(), "resourceLogs", JsonToken.START_OBJECT);
    }

    private ObjectNode object(JsonSlices.Slice obj, String name) throws IOException {
        JsonSlices.Slice s = json.object(obj, name);
        return s == null ? null : (ObjectNode) json.tree(s);
    }

    private JsonSlices.Cursor array(JsonSlices.Slice obj, String name) throws IOException {
        return json.array(obj, name, JsonToken.START_OBJECT);
    }

    @Override
    protected boolean advance() throws IOException {
        while (true) {
            if (scopeLogs != null) {
                JsonSlices.Slice lr = scopeLogs.next();
                if (lr != null) {
                    record(lr);
                    return true;
                }
                scopeLogs = null;
            }
            if (resourceLogs != null) {
                JsonSlices.Slice sl = resourceLogs.next();
                if (sl != null) {
                    ObjectNode scope = object(sl, "scope");
                    scopeName = scope == null ? null : RecordTree.text(scope.get("name"));
                    scopeVersion = scope == null ? null : RecordTree.text(scope.get("version"));
                    scopeLogs = array(sl, "logRecords");
                    continue;
                }
                resourceLogs = null;
            }
            JsonSlices.Slice rl = top == null ? null : top.next();
            if (rl == null) {
                return false;
            }
            ObjectNode res = object(rl, "resource");
            resource = res == null ? null : keyValues(res.get("attributes"), 0);
            resourceLogs = array(rl, "scopeLogs");
        }
    }

    private void record(JsonSlices.Slice lr) throws IOException {
        if (lr.len() > maxRecordBytes) {
            tooLong(lr.len());
            return;
        }
        ObjectNode o = (ObjectNode) json.tree(lr);
        RecordTree r = new RecordTree();
        try {
            OtlpMapping.resource(r, resource);
            OtlpMapping.scope(r, scopeName, scopeVersion);
            OtlpMapping.times(r, unsigned(o.get("timeUnixNano")), unsigned(o.get("observedTimeUnixNano")));
            OtlpMapping.severity(r, severity(o.get("severityNumber")), RecordTree.text(o.get("severityText")));
            OtlpMapping.body(r, o.has("body") ? anyValue(o.get("body"), 0) : null);
            r.top("trace_id", OtlpMapping.hex(id(o.get("traceId"))));
            r.top("span_id", OtlpMapping.hex(id(o.get("spanId"))));
            if (o.hasNonNull("eventName")) {
                r.field("otel.event_name", o.get("eventName").asText());
            }
            OtlpMapping.attributes(r, keyValues(o.get("attributes"), 0));
        } catch (IllegalArgumentException e) {
            refuse("the logRecord is not valid OTLP/JSON: " + e.getMessage(), json.bytes(lr));
            return;
        }
        emit(r.toLine());
    }

    private static long unsigned(JsonNode n) {
        if (n == null || n.isNull()) {
            return 0;
        }
        try {
            return n.isNumber() ? n.asLong() : Long.parseUnsignedLong(n.asText());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a time is not an unsigned integer: " + n.asText());
        }
    }

    private static long severity(JsonNode n) {
        if (n == null || n.isNull()) {
            return 0;
        }
        if (n.isNumber()) {
            return n.asLong();
        }
        String[] names = {
            "UNSPECIFIED",
            "TRACE",
            "TRACE2",
            "TRACE3",
            "TRACE4",
            "DEBUG",
            "DEBUG2",
            "DEBUG3",
            "DEBUG4",
            "INFO",
            "INFO2",
            "INFO3",
            "INFO4",
            "WARN",
            "WARN2",
            "WARN3",
            "WARN4",
            "ERROR",
            "ERROR2",
            "ERROR3",
            "ERROR4",
            "FATAL",
            "FATAL2",
            "FATAL3",
            "FATAL4"
        };
        String s = n.asText().replace("SEVERITY_NUMBER_", "");
        return Arrays.asList(names).indexOf(s) < 0 ? 0 : Arrays.asList(names).indexOf(s);
    }

    private static byte[] id(JsonNode n) {
        if (n == null || n.isNull() || n.asText().isEmpty()) {
            return null;
        }
        try {
            return HexFormat.of().parseHex(n.asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a trace or span id is not hex: " + n.asText());
        }
    }

    private static ObjectNode keyValues(JsonNode list, int depth) {
        ObjectNode out = NODES.objectNode();
        if (list == null || !list.isArray()) {
            return out;
        }
        for (JsonNode kv : list) {
            if (kv.hasNonNull("key")) {
                out.set(kv.get("key").asText(), anyValue(kv.get("value"), depth + 1));
            }
        }
        return out;
    }

    private static JsonNode anyValue(JsonNode v, int depth) {
        if (depth > 16) {
            throw new IllegalArgumentException("values nested deeper than 16");
        }
        if (v == null || !v.isObject() || v.isEmpty()) {
            return NODES.nullNode();
        }
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode x = e.getValue();
        return switch (e.getKey()) {
            case "stringValue" -> NODES.textNode(x.asText());
            case "boolValue" -> NODES.booleanNode(x.asBoolean());
            case "intValue" -> NODES.numberNode(x.isNumber() ? x.asLong() : parseLong(x.asText()));
            case "doubleValue" -> NODES.numberNode(x.asDouble());
            case "bytesValue" -> NODES.textNode(x.asText());
            case "arrayValue" -> {
                ArrayNode a = NODES.arrayNode();
                for (JsonNode item : x.path("values")) {
                    a.add(anyValue(item, depth + 1));
                }
                yield a;
            }
            case "kvlistValue" -> keyValues(x.get("values"), depth + 1);
            default -> throw new IllegalArgumentException("unknown AnyValue kind " + e.getKey());
        };
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("intValue is not an integer: " + s);
        }
    }

    @Override
    protected long contextBytes() {
        return json.body().length;
    }

    static OtlpJsonLines open(InputStream in, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        return new OtlpJsonLines(WholeBody.read(in, mayHold), maxRecordBytes, mayHold);
    }
}
