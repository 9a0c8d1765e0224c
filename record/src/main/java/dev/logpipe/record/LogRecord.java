package dev.logpipe.record;

import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One log record, schema version 3 (docs/record-format.md). Immutable.
 *
 * <p>Optional fields are null when absent. {@code fields} is flat: keys are dotted paths and values
 * are strings, numbers or booleans.
 */
public record LogRecord(
        int schemaVersion,
        String recordId,
        Instant eventTime,
        Instant observedTime,
        String tenantId,
        String traceId,
        String spanId,
        String service,
        String instanceId,
        String region,
        Level level,
        String message,
        Map<String, Object> fields) {

    public static final int SCHEMA_VERSION = 3;

    public LogRecord {
        if (schemaVersion < 1) {
            throw new IllegalArgumentException("schema_version must be >= 1, was " + schemaVersion);
        }
        Objects.requireNonNull(message, "message");
        checkTime("event_time", eventTime);
        checkTime("observed_time", observedTime);
        level = level == null ? Level.UNKNOWN : level;
        fields = checkedCopy(fields);
    }

    /** The fields, checked, in an unmodifiable copy sized for them (most records have none: one shared empty map). */
    private static Map<String, Object> checkedCopy(Map<String, Object> fields) {
        if (fields == null || fields.isEmpty()) {
            return Collections.emptyMap();
        }
        Map<String, Object> copy = new LinkedHashMap<>((int) (fields.size() / 0.75f) + 1);
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            String k = Objects.requireNonNull(e.getKey(), "field name");
            Object v = e.getValue();
            if (!(v instanceof String || v instanceof Number || v instanceof Boolean)) {
                throw new IllegalArgumentException("field " + k + " must be a string, number or boolean, was "
                        + (v == null ? "null" : v.getClass().getSimpleName()));
            }
            copy.put(k, v);
        }
        return Collections.unmodifiableMap(copy);
    }

    private static void checkTime(String name, Instant t) {
        if (t != null && !RecordRules.timeInRange(t)) {
            throw new IllegalArgumentException(name + " must be within years 0000-9999 in UTC, was " + t);
        }
    }

    public static Builder builder(String message) {
        return new Builder(message);
    }

    public Builder toBuilder() {
        Builder b = new Builder(message);
        b.schemaVersion = schemaVersion;
        b.recordId = recordId;
        b.eventTime = eventTime;
        b.observedTime = observedTime;
        b.tenantId = tenantId;
        b.traceId = traceId;
        b.spanId = spanId;
        b.service = service;
        b.instanceId = instanceId;
        b.region = region;
        b.level = level;
        b.fields.putAll(fields);
        return b;
    }

    /** Assembles a record field by field; {@link #build()} validates. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private String recordId;
        private Instant eventTime;
        private Instant observedTime;
        private String tenantId;
        private String traceId;
        private String spanId;
        private String service;
        private String instanceId;
        private String region;
        private Level level = Level.UNKNOWN;
        private String message;
        private final Map<String, Object> fields = new LinkedHashMap<>();
        private int fieldCollisions;
        /**
         * For each name a value was kept beside, the suffix to try next: every lower {@code name#n} is taken, so
         * the k-th value that meets one name costs O(1) amortized, not k probes (null until a collision).
         */
        private Map<String, Integer> nextSuffix;
        /** Candidate {@code name#n} names built so far: what {@link #freeName} costs. */
        int namesTried;

        private Builder(String message) {
            this.message = message;
        }

        public Builder schemaVersion(int v) {
            schemaVersion = v;
            return this;
        }

        public Builder recordId(String v) {
            recordId = v;
            return this;
        }

        public Builder eventTime(Instant v) {
            eventTime = v;
            return this;
        }

        public Builder observedTime(Instant v) {
            observedTime = v;
            return this;
        }

        public Builder tenantId(String v) {
            tenantId = v;
            return this;
        }

        public Builder traceId(String v) {
            traceId = v;
            return this;
        }

        public Builder spanId(String v) {
            spanId = v;
            return this;
        }

        public Builder service(String v) {
            service = v;
            return this;
        }

        public Builder instanceId(String v) {
            instanceId = v;
            return this;
        }

        public Builder region(String v) {
            region = v;
            return this;
        }

        public Builder level(Level v) {
            level = v;
            return this;
        }

        public Builder message(String v) {
            message = v;
            return this;
        }

        public Builder field(String name, Object value) {
            fields.put(name, value);
            return this;
        }

        /**
         * Puts {@code value} under {@code name} when that name is free; otherwise under the first free one of
         * {@code name#2}, {@code name#3}, ..., counted in {@link #fieldCollisions()}: a value is never dropped
         * (docs/record-format.md#flattening). Returns the name used, which may be longer than any limit (the caller
         * checks it). Amortized O(1), however many values meet one name.
         */
        public String fieldKeepingBoth(String name, Object value) {
            if (!fields.containsKey(name)) {
                fields.put(name, value);
                return name;
            }
            String free = freeName(name);
            fields.put(free, value);
            fieldCollisions++;
            return free;
        }

        /**
         * Puts the pipeline's own {@code value} under {@code name} (a marker such as
         * {@code logpipe.redaction.withheld}, whose name must mean what the pipeline says); a value the record
         * already held under that name is kept under a free name as by {@link #fieldKeepingBoth} and counted.
         */
        public Builder pipelineField(String name, Object value) {
            Object prior = fields.put(name, value);
            if (prior != null) {
                fields.put(freeName(name), prior);
                fieldCollisions++;
            }
            return this;
        }

        /** The first {@code name#n} (n >= 2) not taken; {@code name} itself is. */
        private String freeName(String name) {
            if (nextSuffix == null) {
                nextSuffix = new HashMap<>();
            }
            int n = nextSuffix.getOrDefault(name, 2);
            String candidate;
            do {
                candidate = name + "#" + n++;
                namesTried++;
            } while (fields.containsKey(candidate));
            nextSuffix.put(name, n);
            return candidate;
        }

        /**
         * How many {@code fields} values met a name already taken ({@code {"a.b":1,"a":{"b":2}}} once flattened, two
         * names redacted alike, a client field named like a pipeline marker) and were kept under a name of their own
         * (docs/record-format.md#flattening): counted by {@link #fieldKeepingBoth} and {@link #pipelineField}.
         */
        public int fieldCollisions() {
            return fieldCollisions;
        }

        int fieldCount() {
            return fields.size();
        }

        public Builder clearFields() {
            fields.clear();
            nextSuffix = null;
            return this;
        }

        public String recordId() {
            return recordId;
        }

        public Instant eventTime() {
            return eventTime;
        }

        public String service() {
            return service;
        }

        public String instanceId() {
            return instanceId;
        }

        public String region() {
            return region;
        }

        public String traceId() {
            return traceId;
        }

        public String spanId() {
            return spanId;
        }

        public LogRecord build() {
            return new LogRecord(
                    schemaVersion,
                    recordId,
                    eventTime,
                    observedTime,
                    tenantId,
                    traceId,
                    spanId,
                    service,
                    instanceId,
                    region,
                    level,
                    message,
                    fields);
        }
    }
}
