package dev.logpipe.collector.compat.otlp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.compat.DecodedLines;
import dev.logpipe.collector.compat.RecordTree;
import dev.logpipe.collector.compat.WholeBody;
import dev.logpipe.collector.ingest.BodyException;
import java.io.IOException;
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
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final byte[] body;
    private final int maxRecordBytes;
    private final LongPredicate mayHold;
    private final Cursor top;
    private Cursor resourceLogs;
    private Cursor scopeLogs;
    private ObjectNode resource;
    private String scopeName;
    private String scopeVersion;

    private record Slice(int off, int len) {
    }

    /** A parser inside one array, handing out its object elements. */
    private final class Cursor {
        final JsonParser p;
        final int base;

        Cursor(JsonParser p, int base) {
            this.p = p;
            this.base = base;
        }

        Slice next() throws IOException {
            while (true) {
                JsonToken t = p.nextToken();
                if (t == null || t == JsonToken.END_ARRAY) {
                    return null;
                }
                if (t == JsonToken.START_OBJECT) {
                    return extent(p, base);
                }
                p.skipChildren();
            }
        }
    }

    OtlpJsonLines(byte[] body, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        this.body = body;
        this.maxRecordBytes = maxRecordBytes;
        this.mayHold = mayHold;
        try (JsonParser check = FACTORY.createParser(body)) {
            if (check.nextToken() != JsonToken.START_OBJECT) {
                throw new BodyException(400, "the body is not an OTLP/JSON ExportLogsServiceRequest (not an object)");
            }
            check.skipChildren();
            if (check.nextToken() != null) {
                throw new BodyException(400, "the body has content after the OTLP/JSON object");
            }
        } catch (JsonProcessingException e) {
            throw new BodyException(400, "the body is not valid JSON: " + e.getOriginalMessage());
        }
        this.top = array(new Slice(0, body.length), "resourceLogs");
    }

    private static Slice extent(JsonParser p, int base) throws IOException {
        int start = base + (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        int end = base + (int) p.currentLocation().getByteOffset();
        return new Slice(start, end - start);
    }

    private JsonParser parser(Slice s) throws IOException {
        return FACTORY.createParser(body, s.off, s.len);
    }

    /** A cursor over the array {@code name} of the object {@code obj}, or null when it has none. */
    private Cursor array(Slice obj, String name) throws IOException {
        JsonParser p = parser(obj);
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals(name) && v == JsonToken.START_ARRAY) {
                return new Cursor(p, obj.off);
            }
            p.skipChildren();
        }
        p.close();
        return null;
    }

    /** The object {@code name} of {@code obj} parsed into a tree (reserved first), or null. */
    private ObjectNode object(Slice obj, String name) throws IOException {
        try (JsonParser p = parser(obj)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals(name) && v == JsonToken.START_OBJECT) {
                    return tree(extent(p, obj.off));
                }
                p.skipChildren();
            }
        }
        return null;
    }

    private ObjectNode tree(Slice s) throws IOException {
        if (!mayHold.test(body.length + (long) OtlpProtoLines.TREE_FACTOR * s.len)) {
            throw WholeBody.overBound();
        }
        return (ObjectNode) JSON.readTree(body, s.off, s.len);
    }

    @Override
    protected boolean advance() throws IOException {
        while (true) {
            if (scopeLogs != null) {
                Slice lr = scopeLogs.next();
                if (lr != null) {
                    record(lr);
                    return true;
                }
                scopeLogs = null;
            }
            if (resourceLogs != null) {
                Slice sl = resourceLogs.next();
                if (sl != null) {
                    ObjectNode scope = object(sl, "scope");
                    scopeName = scope == null ? null : RecordTree.text(scope.get("name"));
                    scopeVersion = scope == null ? null : RecordTree.text(scope.get("version"));
                    scopeLogs = array(sl, "logRecords");
                    continue;
                }
                resourceLogs = null;
            }
            Slice rl = top == null ? null : top.next();
            if (rl == null) {
                return false;
            }
            ObjectNode res = object(rl, "resource");
            resource = res == null ? null : keyValues(res.get("attributes"), 0);
            resourceLogs = array(rl, "scopeLogs");
        }
    }

    private void record(Slice lr) throws IOException {
        if (lr.len > maxRecordBytes) {
            tooLong(lr.len);
            return;
        }
        ObjectNode o = tree(lr);
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
            refuse("the logRecord is not valid OTLP/JSON: " + e.getMessage(),
                    java.util.Arrays.copyOfRange(body, lr.off, lr.off + lr.len));
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
        String[] names = {"UNSPECIFIED", "TRACE", "TRACE2", "TRACE3", "TRACE4", "DEBUG", "DEBUG2", "DEBUG3", "DEBUG4",
            "INFO", "INFO2", "INFO3", "INFO4", "WARN", "WARN2", "WARN3", "WARN4", "ERROR", "ERROR2", "ERROR3",
            "ERROR4", "FATAL", "FATAL2", "FATAL3", "FATAL4"};
        String s = n.asText().replace("SEVERITY_NUMBER_", "");
        return java.util.Arrays.asList(names).indexOf(s) < 0 ? 0 : java.util.Arrays.asList(names).indexOf(s);
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
        return body.length;
    }

    static OtlpJsonLines open(java.io.InputStream in, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        return new OtlpJsonLines(WholeBody.read(in, mayHold), maxRecordBytes, mayHold);
    }
}
