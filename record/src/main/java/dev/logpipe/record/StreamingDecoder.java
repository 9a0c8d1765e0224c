package dev.logpipe.record;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Decodes a well-formed, unsurprising record line in one pass of a streaming parser, without building a JSON tree:
 * the indexer's and the collector's hot path. Anything it is not sure it reads exactly as {@link RecordCodec}'s tree
 * decoder does (an error of any kind, a duplicate key, an array, a huge integer, a time that is not canonical UTC, a
 * limit reached) makes it answer null, and the caller decodes the line with the tree decoder, which has the last word
 * on every value and every error message. Thread-safe (no state).
 */
final class StreamingDecoder {
    private static final int MESSAGE = 1;
    private static final int SCHEMA_VERSION = 1 << 1;
    private static final int RECORD_ID = 1 << 2;
    private static final int EVENT_TIME = 1 << 3;
    private static final int OBSERVED_TIME = 1 << 4;
    private static final int TENANT_ID = 1 << 5;
    private static final int TRACE_ID = 1 << 6;
    private static final int SPAN_ID = 1 << 7;
    private static final int SERVICE = 1 << 8;
    private static final int INSTANCE_ID = 1 << 9;
    private static final int REGION = 1 << 10;
    private static final int LEVEL = 1 << 11;
    private static final int FIELDS = 1 << 12;
    /** Beyond this many fields the tree decoder takes over (it enforces {@link RecordCodec#MAX_FIELDS}). */
    private static final int MAX_FAST_FIELDS = 256;

    private StreamingDecoder() {}

    /** The record's builder, or null when the tree decoder must read the line. */
    static LogRecord.Builder decode(JsonFactory factory, byte[] line, int off, int len) {
        try (JsonParser p = factory.createParser(line, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String message = null;
            String recordId = null;
            String tenantId = null;
            String traceId = null;
            String spanId = null;
            String service = null;
            String instanceId = null;
            String region = null;
            String level = null;
            Instant eventTime = null;
            Instant observedTime = null;
            int version = LogRecord.SCHEMA_VERSION;
            Map<String, Object> fields = null;
            int seen = 0;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                int bit;
                switch (name) {
                    case "message" -> {
                        bit = MESSAGE;
                        if (v != JsonToken.VALUE_STRING) {
                            return null;
                        }
                        message = p.getText();
                    }
                    case "schema_version" -> {
                        bit = SCHEMA_VERSION;
                        if (v != JsonToken.VALUE_NULL) {
                            if (v != JsonToken.VALUE_NUMBER_INT
                                    || p.getNumberType() != JsonParser.NumberType.INT
                                    || p.getIntValue() < 1) {
                                return null;
                            }
                            version = p.getIntValue();
                        }
                    }
                    case "record_id" -> {
                        bit = RECORD_ID;
                        recordId = text(p, v);
                    }
                    case "event_time" -> {
                        bit = EVENT_TIME;
                        eventTime = time(p, v);
                        if (eventTime == null && v != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                    case "observed_time" -> {
                        bit = OBSERVED_TIME;
                        observedTime = time(p, v);
                        if (observedTime == null && v != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                    case "tenant_id" -> {
                        bit = TENANT_ID;
                        tenantId = text(p, v);
                    }
                    case "trace_id" -> {
                        bit = TRACE_ID;
                        traceId = text(p, v);
                    }
                    case "span_id" -> {
                        bit = SPAN_ID;
                        spanId = text(p, v);
                    }
                    case "service" -> {
                        bit = SERVICE;
                        service = text(p, v);
                    }
                    case "instance_id" -> {
                        bit = INSTANCE_ID;
                        instanceId = text(p, v);
                    }
                    case "region" -> {
                        bit = REGION;
                        region = text(p, v);
                    }
                    case "level" -> {
                        bit = LEVEL;
                        level = text(p, v);
                    }
                    case "fields" -> {
                        bit = FIELDS;
                        if (v == JsonToken.START_OBJECT) {
                            fields = new LinkedHashMap<>();
                            if (!flatten(p, "", fields, new HashSet<>(), 1)) {
                                return null;
                            }
                        } else if (v != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                    default -> {
                        bit = 0; // unknown keys are ignored, as by the tree decoder
                        p.skipChildren();
                    }
                }
                if (bit != 0 && (seen & bit) != 0) {
                    return null; // a duplicate key: the tree decoder's rules apply
                }
                seen |= bit;
                if (v != JsonToken.VALUE_STRING && v != JsonToken.VALUE_NULL && (bit & TEXTS) != 0) {
                    return null; // a text field of another type: the tree decoder words the error
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null || message == null) {
                return null;
            }
            LogRecord.Builder b = LogRecord.builder(message)
                    .schemaVersion(version)
                    .recordId(recordId)
                    .eventTime(eventTime)
                    .observedTime(observedTime)
                    .tenantId(tenantId)
                    .traceId(traceId)
                    .spanId(spanId)
                    .service(service)
                    .instanceId(instanceId)
                    .region(region)
                    .level(Level.normalize(level));
            if (fields != null) {
                fields.forEach(b::field);
            }
            return b;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static final int TEXTS =
            RECORD_ID | TENANT_ID | TRACE_ID | SPAN_ID | SERVICE | INSTANCE_ID | REGION | LEVEL;

    private static String text(JsonParser p, JsonToken v) throws IOException {
        return v == JsonToken.VALUE_STRING ? p.getText() : null;
    }

    /** A canonical UTC time, or null (for JSON null, or anything the tree decoder must read). */
    private static Instant time(JsonParser p, JsonToken v) throws IOException {
        return v == JsonToken.VALUE_STRING ? RecordTimes.parseUtc(p.getText()) : null;
    }

    /**
     * Flattens one object of {@code fields} as the tree decoder does; false when the tree decoder must do it. Every
     * flattened name (objects and nulls included) is remembered, so a name met twice, at any level, hands over.
     */
    private static boolean flatten(JsonParser p, String prefix, Map<String, Object> out, Set<String> names, int depth)
            throws IOException {
        if (depth > RecordCodec.MAX_NESTING_DEPTH) {
            return false;
        }
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = prefix.isEmpty() ? p.currentName() : prefix + "." + p.currentName();
            if (key.length() > RecordCodec.MAX_FIELD_NAME_LENGTH || !names.add(key) || names.size() > MAX_FAST_FIELDS) {
                return false;
            }
            JsonToken v = p.nextToken();
            switch (v) {
                case START_OBJECT -> {
                    if (!flatten(p, key, out, names, depth + 1)) {
                        return false;
                    }
                }
                case VALUE_STRING -> out.put(key, p.getText());
                case VALUE_NUMBER_INT -> {
                    JsonParser.NumberType type = p.getNumberType();
                    if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                        return false;
                    }
                    out.put(key, p.getLongValue());
                }
                case VALUE_NUMBER_FLOAT -> {
                    double d = p.getDoubleValue();
                    if (!Double.isFinite(d)) {
                        return false;
                    }
                    out.put(key, d);
                }
                case VALUE_TRUE -> out.put(key, Boolean.TRUE);
                case VALUE_FALSE -> out.put(key, Boolean.FALSE);
                case VALUE_NULL -> {}
                default -> {
                    return false; // arrays are kept as their JSON text by the tree decoder
                }
            }
        }
        return t == JsonToken.END_OBJECT;
    }
}
