package dev.logpipe.collector.internal.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;

/**
 * A schema-v3 record being built from another wire format, as a JSON tree: the top-level fields, and a
 * {@code fields} object for the rest. Its bytes ({@link #toLine}) go through the native validation, so a value that
 * breaks the schema (an unparseable time, an over-long service name) is dead-lettered with the codec's reason.
 */
public final class RecordTree {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ObjectNode record = JSON.createObjectNode();
    private final ObjectNode fields = JSON.createObjectNode();

    public RecordTree() {
        record.put("schema_version", 3);
    }

    /** Sets a top-level string field unless {@code value} is null or empty (the first mapping that has it wins). */
    public RecordTree top(String name, String value) {
        if (value != null && !value.isEmpty() && !record.has(name)) {
            record.put(name, value);
        }
        return this;
    }

    /** Sets the message even when it is empty (a record always has one). */
    public RecordTree forceMessage(String value) {
        record.put("message", value);
        return this;
    }

    public boolean has(String name) {
        return record.has(name);
    }

    public RecordTree eventTime(Instant t) {
        if (t != null) {
            record.put("event_time", t.toString());
        }
        return this;
    }

    public RecordTree field(String name, JsonNode value) {
        if (value != null && !value.isNull()) {
            fields.set(name, value);
        }
        return this;
    }

    public RecordTree field(String name, String value) {
        if (value != null) {
            fields.put(name, value);
        }
        return this;
    }

    public RecordTree field(String name, long value) {
        fields.put(name, value);
        return this;
    }

    public ObjectNode fields() {
        return fields;
    }

    /** The record as one line of JSON (no newline). */
    public byte[] toLine() {
        if (!fields.isEmpty()) {
            record.set("fields", fields);
        }
        try {
            return JSON.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    /** A JSON value as text: a string as it is, anything else as JSON. */
    public static String text(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return null;
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }
}
