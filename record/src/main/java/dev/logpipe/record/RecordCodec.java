package dev.logpipe.record;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Schema-v3 records to and from one line of JSON (the NDJSON wire form and the Kafka value).
 *
 * <p>Decoding is lenient about what it does not know (unknown top-level keys are ignored, a newer
 * {@code schema_version} is read for the fields we know) and strict about what it does: a wrong type
 * or a missing {@code message} is a {@link RecordFormatException} naming the field. Nested objects in
 * {@code fields} are flattened with dots. Thread-safe.
 */
public final class RecordCodec {
    /** Limits that keep a hostile line from costing unbounded memory or stack ({@link RecordRules}). */
    public static final int MAX_NESTING_DEPTH = RecordRules.MAX_NESTING_DEPTH;

    public static final int MAX_FIELDS = RecordRules.MAX_FIELDS;
    /** Longest flattened field name: nested names add up, and each flattened key is its own string. */
    public static final int MAX_FIELD_NAME_LENGTH = RecordRules.MAX_FIELD_NAME_LENGTH;

    /**
     * The Kafka header that names the tenant of a records- or dead-letter-topic message (UTF-8), set by the collector:
     * a consumer that cannot read the value still knows whose it is (docs/record-format.md#in-kafka).
     */
    public static final String TENANT_HEADER = "logpipe.tenant";

    private final ObjectMapper mapper;

    public RecordCodec() {
        // Trailing content after the object ({"message":"a"}{"message":"b"}) is an error, not silently dropped.
        JsonMapper m = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        m.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH + 2)
                        .maxStringLength(16 * 1024 * 1024)
                        .build());
        this.mapper = m;
    }

    public byte[] encode(LogRecord r) {
        JsonBuffer out = new JsonBuffer(256 + r.message().length());
        encodeTo(r, out);
        return out.toByteArray();
    }

    /**
     * Appends the record as one JSON object (no newline).
     *
     * <p>These bytes are a stored contract, not only a wire form: archive format 2 does not store a source that this
     * encoding of its columns gives back byte for byte, it rebuilds it with this encoding when read
     * (docs/archive-format.md#rebuilt-sources), and each archive's footer holds the day
     * digest, SHA-256 over the sources as read back. A change to the key order or to which keys are written (for
     * instance leaving out {@code "level":"UNKNOWN"}) would change the sources of every record already archived that
     * way and fail {@code ArchiveReader.verify} for its day; only a new archive format could. This method is the
     * owner of the layout: the forwarder's {@code NdjsonEncoder}, which writes records from bytes without a
     * {@link LogRecord}, copies it and writes these bytes for the same record
     * ({@code NdjsonEncoderAgreesWithRecordCodecTest} in the forwarder holds it byte for byte), so a change here is
     * made there too.
     */
    public void encodeTo(LogRecord r, JsonBuffer out) {
        out.ascii("{\"schema_version\":").number(r.schemaVersion());
        optional(out, "record_id", r.recordId());
        time(out, "event_time", r.eventTime());
        time(out, "observed_time", r.observedTime());
        optional(out, "tenant_id", r.tenantId());
        optional(out, "trace_id", r.traceId());
        optional(out, "span_id", r.spanId());
        optional(out, "service", r.service());
        optional(out, "instance_id", r.instanceId());
        optional(out, "region", r.region());
        out.ascii(",\"level\":").string(r.level().name());
        out.ascii(",\"message\":").string(r.message());
        out.ascii(",\"fields\":{");
        boolean first = true;
        for (Map.Entry<String, Object> e : r.fields().entrySet()) {
            if (!first) {
                out.raw((byte) ',');
            }
            first = false;
            out.string(e.getKey()).raw((byte) ':');
            Object v = e.getValue();
            if (v instanceof String s) {
                out.string(s);
            } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                out.number(((Number) v).longValue());
            } else if (v instanceof Boolean) {
                out.ascii(v.toString());
            } else {
                double d = ((Number) v).doubleValue();
                if (Double.isFinite(d)) {
                    out.ascii(Double.toString(d));
                } else {
                    out.string(Double.toString(d));
                }
            }
        }
        out.ascii("}}");
    }

    public LogRecord decode(byte[] line) throws RecordFormatException {
        return decode(line, 0, line.length);
    }

    public LogRecord decode(byte[] line, int off, int len) throws RecordFormatException {
        return decodeToBuilder(line, off, len).build();
    }

    /** Like {@link #decode}, but stops at the builder, for a caller that changes the record before building it once. */
    public LogRecord.Builder decodeToBuilder(byte[] line, int off, int len) throws RecordFormatException {
        LogRecord.Builder fast = StreamingDecoder.decode(mapper.getFactory(), line, off, len);
        return fast != null ? fast : decodeTree(line, off, len);
    }

    /** The general decoder (a JSON tree): every line {@link StreamingDecoder} hands over, and every error. */
    LogRecord.Builder decodeTree(byte[] line, int off, int len) throws RecordFormatException {
        JsonNode node;
        try {
            node = mapper.readTree(line, off, len);
        } catch (JsonProcessingException e) {
            throw new RecordFormatException("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new RecordFormatException("unreadable JSON: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw new RecordFormatException("a record must be a JSON object");
        }
        return fromTree((ObjectNode) node);
    }

    private LogRecord.Builder fromTree(ObjectNode o) throws RecordFormatException {
        JsonNode message = o.get("message");
        if (message == null || message.isNull()) {
            throw new RecordFormatException("message is required");
        }
        if (!message.isTextual()) {
            throw new RecordFormatException("message must be a string, was " + message.getNodeType());
        }
        int version = LogRecord.SCHEMA_VERSION;
        JsonNode v = o.get("schema_version");
        if (v != null && !v.isNull()) {
            if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 1) {
                throw new RecordFormatException("schema_version must be a positive integer");
            }
            version = v.intValue();
        }
        LogRecord.Builder b = LogRecord.builder(message.textValue())
                .schemaVersion(version)
                .recordId(text(o, "record_id"))
                .eventTime(time(o, "event_time"))
                .observedTime(time(o, "observed_time"))
                .tenantId(text(o, "tenant_id"))
                .traceId(text(o, "trace_id"))
                .spanId(text(o, "span_id"))
                .service(text(o, "service"))
                .instanceId(text(o, "instance_id"))
                .region(text(o, "region"))
                .level(Level.normalize(text(o, "level")));
        JsonNode fields = o.get("fields");
        if (fields != null && !fields.isNull()) {
            if (!fields.isObject()) {
                throw new RecordFormatException("fields must be an object, was " + fields.getNodeType());
            }
            flatten("", fields, b, 1);
        }
        return b;
    }

    /**
     * Flattens {@code node} into {@code out} with dotted names. A name already taken ({@code {"a.b":1,"a":{"b":2}}})
     * keeps its first value; a later one is kept as {@code a.b#2} (then {@code #3}, ...) and counted
     * ({@link LogRecord.Builder#fieldKeepingBoth}). An integer beyond a long is kept exactly, as the text of its
     * digits.
     */
    private static void flatten(String prefix, JsonNode node, LogRecord.Builder out, int depth)
            throws RecordFormatException {
        if (depth > MAX_NESTING_DEPTH) {
            throw new RecordFormatException("fields nested deeper than " + MAX_NESTING_DEPTH + " levels");
        }
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            if (key.length() > MAX_FIELD_NAME_LENGTH) {
                throw new RecordFormatException(
                        "a field name (with its parents) is longer than " + MAX_FIELD_NAME_LENGTH + " characters");
            }
            JsonNode value = e.getValue();
            if (value.isObject()) {
                flatten(key, value, out, depth + 1);
                continue;
            }
            if (out.fieldCount() >= MAX_FIELDS) {
                throw new RecordFormatException("more than " + MAX_FIELDS + " fields");
            }
            if (value.isNull()) {
                continue;
            }
            Object v;
            if (value.isTextual()) {
                v = value.textValue();
            } else if (value.isIntegralNumber() && value.canConvertToLong()) {
                v = value.longValue();
            } else if (value.isIntegralNumber()) {
                v = value.asText(); // past a long: a double would lose digits, the text keeps them all
            } else if (value.isNumber()) {
                v = value.doubleValue();
            } else if (value.isBoolean()) {
                v = value.booleanValue();
            } else {
                // Arrays and other shapes are kept as their JSON text so nothing is lost.
                v = value.toString();
            }
            if (out.fieldKeepingBoth(key, v).length() > MAX_FIELD_NAME_LENGTH) {
                // key#n, for a key that was itself within the limit
                throw new RecordFormatException(
                        "a field name (with its parents) is longer than " + MAX_FIELD_NAME_LENGTH + " characters");
            }
        }
    }

    private static String text(ObjectNode o, String name) throws RecordFormatException {
        JsonNode n = o.get(name);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw new RecordFormatException(name + " must be a string, was " + n.getNodeType());
        }
        return n.textValue();
    }

    private static Instant time(ObjectNode o, String name) throws RecordFormatException {
        String s = text(o, name);
        if (s == null) {
            return null;
        }
        Instant fast = RecordTimes.parseUtc(s);
        if (fast != null) {
            return fast;
        }
        Instant t;
        try {
            // RFC 3339 allows a space or a lowercase t/z; java.time wants the ISO form.
            String iso = s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + 'T' + s.substring(11) : s;
            t = OffsetDateTime.parse(iso.toUpperCase(Locale.ROOT)).toInstant();
        } catch (DateTimeParseException e) {
            throw new RecordFormatException(name + " must be an RFC 3339 timestamp, was \"" + s + "\"");
        }
        // java.time also reads "+100000-01-01T00:00:00Z" and "-0001-...", which RFC 3339 has no form for
        if (!RecordRules.timeInRange(t)) {
            throw new RecordFormatException(
                    name + " must be an RFC 3339 timestamp within years 0000-9999 in UTC, was \"" + s + "\"");
        }
        return t;
    }

    /** RFC 3339 in UTC, always with a fraction: milliseconds, or nanoseconds when there are any. */
    static String formatTime(Instant t) {
        return RecordTimes.formatUtc(t);
    }

    /** {@code ,"key":"<time>"} written straight into {@code out} ({@link RecordTimes#writeUtc}), or nothing for null. */
    private static void time(JsonBuffer out, String key, Instant t) {
        if (t != null) {
            byte[] b = new byte[RecordTimes.MAX_UTC_LENGTH + 2];
            b[0] = '"';
            int end = RecordTimes.writeUtc(t, b, 1);
            b[end++] = '"';
            out.raw((byte) ',').raw((byte) '"').ascii(key).ascii("\":").raw(b, 0, end);
        }
    }

    private static void optional(JsonBuffer out, String key, String value) {
        if (value != null) {
            out.raw((byte) ',').raw((byte) '"').ascii(key).ascii("\":").string(value);
        }
    }
}
