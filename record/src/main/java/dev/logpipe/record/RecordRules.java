package dev.logpipe.record;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * What a schema-v3 record may hold (docs/record-format.md#validity), in one place: {@link RecordCodec} applies these
 * rules when it reads a line, the collector to a record it is about to acknowledge, and the indexer to a record it is
 * about to index. So a record the collector acknowledges is one the indexer can index. Stateless.
 */
public final class RecordRules {
    /** The earliest and latest times a record holds: RFC 3339's four-digit years, in UTC. */
    public static final Instant MIN_TIME = Instant.parse("0000-01-01T00:00:00Z");

    public static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999999999Z");
    /** Limits that keep a hostile line from costing unbounded memory or stack. */
    public static final int MAX_NESTING_DEPTH = 16;

    public static final int MAX_FIELDS = 1000;
    /** Longest flattened field name: nested names add up, and each flattened key is its own string. */
    public static final int MAX_FIELD_NAME_LENGTH = 1024;
    /** Longest tenant id, in characters. */
    public static final int MAX_TENANT_CHARS = 128;
    /** A tenant id is a directory name once encoded (every byte but {@code a-z 0-9 -} as three characters). */
    public static final int MAX_TENANT_ENCODED_CHARS = 240;

    private RecordRules() {}

    /** Whether {@code t} can be written as RFC 3339 in UTC ({@code 0000-01-01T00:00:00Z} to the end of 9999). */
    public static boolean timeInRange(Instant t) {
        return !t.isBefore(MIN_TIME) && !t.isAfter(MAX_TIME);
    }

    /**
     * Why {@code r} cannot be indexed as it is, in words fit for a dead-letter reason, or null when it can: its tenant
     * (see {@link #tenantProblem}), its {@code record_id} ({@link RecordId#problem}), more than {@link #MAX_FIELDS}
     * fields, or a field name longer than {@link #MAX_FIELD_NAME_LENGTH}. Times are checked when a record is built
     * ({@link LogRecord}).
     */
    public static String problem(LogRecord r) {
        String tenant = tenantProblem(r.tenantId());
        if (tenant != null) {
            return "tenant_id " + tenant;
        }
        String id = RecordId.problem(r.recordId());
        if (id != null) {
            return id;
        }
        return fieldsProblem(r.fields());
    }

    /** Why {@code fields} are too many or a name too long, or null. */
    public static String fieldsProblem(Map<String, Object> fields) {
        if (fields.size() > MAX_FIELDS) {
            return "more than " + MAX_FIELDS + " fields (" + fields.size() + ")";
        }
        for (String name : fields.keySet()) {
            if (name.length() > MAX_FIELD_NAME_LENGTH) {
                return "a field name (with its parents) is longer than " + MAX_FIELD_NAME_LENGTH + " characters";
            }
        }
        return null;
    }

    /**
     * Why {@code tenant} cannot be a tenant id (never quoting it), or null: missing or empty, longer than
     * {@link #MAX_TENANT_CHARS}, a control character, an unpaired surrogate, or longer than
     * {@link #MAX_TENANT_ENCODED_CHARS} once encoded as a directory name.
     */
    public static String tenantProblem(String tenant) {
        if (tenant == null || tenant.isEmpty()) {
            return "is missing";
        }
        if (tenant.length() > MAX_TENANT_CHARS) {
            return "is longer than " + MAX_TENANT_CHARS + " characters";
        }
        for (int i = 0; i < tenant.length(); i++) {
            char c = tenant.charAt(i);
            if (Character.isISOControl(c)) {
                return "holds a control character";
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < tenant.length()
                    && Character.isLowSurrogate(tenant.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "is not valid UTF-16 (an unpaired surrogate)";
            }
        }
        int encoded = 0;
        for (byte x : tenant.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            encoded += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? 1 : 3;
        }
        if (encoded > MAX_TENANT_ENCODED_CHARS) {
            return "encodes to a directory name longer than " + MAX_TENANT_ENCODED_CHARS + " characters";
        }
        return null;
    }
}
