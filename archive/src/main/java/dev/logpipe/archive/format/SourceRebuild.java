package dev.logpipe.archive.format;

import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordRules;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Format 2's way of not storing a record's source twice (docs/archive-format.md#rebuilt-sources): what the key and
 * label columns do not hold (schema version, the source's own event time, sub-millisecond times, message, fields) is
 * kept in three columns, and the source is the record codec's encoding of the record those columns make. The writer
 * keeps a source this way only when that encoding equals the source byte for byte; any other source is stored as it
 * came. Thread-safe (stateless).
 */
final class SourceRebuild {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final byte STRING = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte TRUE = 3;
    private static final byte FALSE = 4;

    /**
     * What the source columns hold of a record beyond {@link ArchivedRecord}.
     *
     * @param eventOffsetMillis the source's event time minus the time the record is indexed under (0 unless clamped)
     * @param eventNanos the source event time's nanoseconds within its millisecond
     * @param observedNanos the observed time's nanoseconds within its millisecond
     */
    record Parts(
            int schemaVersion,
            long eventOffsetMillis,
            int eventNanos,
            int observedNanos,
            String message,
            Map<String, Object> fields) {}

    /**
     * A rebuilt record's parts as a block decode reads them: all but its fields, which stay in the {@code FIELDS}
     * column at {@code fieldsAt} until the record is asked for (a message scan never asks).
     */
    record Pending(
            int schemaVersion,
            long eventOffsetMillis,
            int eventNanos,
            int observedNanos,
            String message,
            int fieldsAt) {}

    private SourceRebuild() {}

    /**
     * The parts of {@code r} ({@code decoded} is its source decoded), or null when its source does not rebuild.
     * {@code scratch} is the caller's buffer, reused. The record {@link #record} makes of r and the parts is the
     * decoded one field for field (checked here: tenant, id, labels, times), so its encoding is compared.
     */
    static Parts partsOf(String tenant, ArchivedRecord r, LogRecord decoded, byte[] source, JsonBuffer scratch) {
        if (decoded.eventTime() == null
                || decoded.observedTime() == null
                || decoded.observedTime().toEpochMilli() != r.observedTimeMillis()
                || decoded.fields().size() > RecordCodec.MAX_FIELDS
                || !tenant.equals(decoded.tenantId())
                || !r.recordId().equals(decoded.recordId())
                || r.level() != decoded.level()
                || !Objects.equals(r.service(), decoded.service())
                || !Objects.equals(r.instanceId(), decoded.instanceId())
                || !Objects.equals(r.region(), decoded.region())
                || !Objects.equals(r.traceId(), decoded.traceId())
                || !Objects.equals(r.spanId(), decoded.spanId())) {
            return null;
        }
        long offset = decoded.eventTime().toEpochMilli() - r.eventTimeMillis();
        scratch.reset();
        CODEC.encodeTo(decoded, scratch);
        if (!Arrays.equals(scratch.array(), 0, scratch.size(), source, 0, source.length)) {
            return null;
        }
        return new Parts(
                decoded.schemaVersion(),
                offset,
                decoded.eventTime().getNano() % 1_000_000,
                decoded.observedTime().getNano() % 1_000_000,
                decoded.message(),
                decoded.fields());
    }

    /** The source of a record {@link #record} made. */
    static byte[] source(LogRecord rebuilt) {
        return CODEC.encode(rebuilt);
    }

    /**
     * The record {@code r}'s keys and labels, {@code p} and its fields make (r's own source is not read).
     *
     * @throws IllegalArgumentException the parts make no valid record (a damaged column)
     * @throws ArithmeticException the event-time offset overflows (a damaged column)
     */
    static LogRecord record(String tenant, ArchivedRecord r, Pending p, Map<String, Object> fields) {
        Instant event = eventTime(r.eventTimeMillis(), p);
        Instant observed = observedTime(r.observedTimeMillis(), p);
        return new LogRecord(
                p.schemaVersion(),
                r.recordId(),
                event,
                observed,
                tenant,
                r.traceId(),
                r.spanId(),
                r.service(),
                r.instanceId(),
                r.region(),
                r.level(),
                p.message(),
                fields);
    }

    /**
     * Checks what a block decode reads ahead of the record: the times the record will have are within the years a
     * record allows (so making it later cannot fail on them).
     *
     * @throws IllegalArgumentException a time out of range (a damaged column)
     * @throws ArithmeticException the event-time offset overflows (a damaged column)
     */
    static void checkTimes(long eventTimeMillis, long observedTimeMillis, Pending p) {
        for (Instant t : new Instant[] {eventTime(eventTimeMillis, p), observedTime(observedTimeMillis, p)}) {
            if (!RecordRules.timeInRange(t)) {
                throw new IllegalArgumentException("a time out of a record's range: " + t);
            }
        }
    }

    private static Instant eventTime(long eventTimeMillis, Pending p) {
        return Instant.ofEpochMilli(Math.addExact(eventTimeMillis, p.eventOffsetMillis()))
                .plusNanos(p.eventNanos());
    }

    private static Instant observedTime(long observedTimeMillis, Pending p) {
        return Instant.ofEpochMilli(observedTimeMillis).plusNanos(p.observedNanos());
    }

    /** Writes all but the message (a block's messages are written together: {@link MessageColumns}). */
    static void write(Parts p, Bytes rebuild, Bytes fields) {
        rebuild.varint(p.schemaVersion());
        rebuild.zigzag(p.eventOffsetMillis());
        rebuild.varint(p.eventNanos());
        rebuild.varint(p.observedNanos());
        fields.varint(p.fields().size());
        for (Map.Entry<String, Object> e : p.fields().entrySet()) {
            fields.string(e.getKey());
            Object v = e.getValue();
            if (v instanceof String s) {
                fields.add(STRING);
                fields.string(s);
            } else if (v instanceof Boolean b) {
                fields.add(b ? TRUE : FALSE);
            } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                fields.add(LONG);
                fields.zigzag(((Number) v).longValue());
            } else {
                fields.add(DOUBLE);
                fields.fixed64(Double.doubleToRawLongBits(((Number) v).doubleValue()));
            }
        }
    }

    /**
     * Reads a record's parts but its fields, and steps over those, checking they would decode.
     *
     * @throws IllegalArgumentException the columns are damaged
     */
    static Pending readPending(Bytes.Reader rebuild, MessageColumns.Reader message, Bytes.Reader fields) {
        int schemaVersion = Math.toIntExact(rebuild.varint());
        if (schemaVersion < 1) {
            throw new IllegalArgumentException("schema version " + schemaVersion);
        }
        long offset = rebuild.zigzag();
        int eventNanos = nanos(rebuild.varint());
        int observedNanos = nanos(rebuild.varint());
        String text = message.next();
        int fieldsAt = fields.position();
        long n = fieldCount(fields);
        for (long i = 0; i < n; i++) {
            if (!fields.skipString()) {
                throw new IllegalArgumentException("a field without name");
            }
            byte tag = fields.next();
            switch (tag) {
                case STRING -> {
                    if (!fields.skipString()) {
                        throw new IllegalArgumentException("a field without value");
                    }
                }
                case LONG -> fields.varint();
                case DOUBLE -> fields.skip(8);
                case TRUE, FALSE -> {}
                default -> throw new IllegalArgumentException("unknown field type " + tag);
            }
        }
        return new Pending(schemaVersion, offset, eventNanos, observedNanos, text, fieldsAt);
    }

    /**
     * The fields {@link #readPending} stepped over, from the {@code FIELDS} column's bytes.
     *
     * @throws IllegalArgumentException the column is damaged
     */
    static Map<String, Object> fields(byte[] column, int at) {
        Bytes.Reader fields = new Bytes.Reader(column, at);
        long n = fieldCount(fields);
        Map<String, Object> map = n == 0 ? Map.of() : new LinkedHashMap<>((int) (n / 0.75f) + 1);
        for (long i = 0; i < n; i++) {
            String key = fields.string();
            byte tag = fields.next();
            Object value = switch (tag) {
                case STRING -> fields.string();
                case LONG -> fields.zigzag();
                case DOUBLE -> Double.longBitsToDouble(fields.fixed64());
                case TRUE -> Boolean.TRUE;
                case FALSE -> Boolean.FALSE;
                default -> throw new IllegalArgumentException("unknown field type " + tag);
            };
            if (key == null || value == null) {
                throw new IllegalArgumentException("a field without name or value");
            }
            map.put(key, value);
        }
        return map;
    }

    private static long fieldCount(Bytes.Reader fields) {
        long n = fields.varint();
        if (n < 0 || n > RecordCodec.MAX_FIELDS) {
            throw new IllegalArgumentException(n + " fields, more than a record has");
        }
        return n;
    }

    private static int nanos(long v) {
        if (v < 0 || v >= 1_000_000) {
            throw new IllegalArgumentException("sub-millisecond nanoseconds " + v + " out of range");
        }
        return (int) v;
    }
}
