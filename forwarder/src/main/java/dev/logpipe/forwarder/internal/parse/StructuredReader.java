package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.RecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * Reads one JSON or logfmt line into a {@link StructuredLine}: keys named in {@code parser.keys} feed the
 * schema fields (the first one in the line wins; a later one for the same field stays a field), the time key
 * is parsed with the configured layout, everything else becomes a field. Field names follow the record
 * module's rules: nested names joined with dots, at most {@link RecordCodec#MAX_FIELDS} fields of at most
 * {@link RecordCodec#MAX_FIELD_NAME_LENGTH} characters; a key repeated in a line keeps its first value.
 * One instance per pipeline thread.
 */
public abstract class StructuredReader {
    /** Fields the forwarder writes itself; a line's key of the same name is dropped. */
    public static final Set<String> RESERVED = ForwarderConfig.RESERVED_FIELDS;

    private final KeyRoles roles;
    private final TimeParser time;
    private final byte[] ascii = new byte[64];
    /** Level, service and region values repeat: their Strings are cached (service and region share a cache). */
    private final TextCache levels = new TextCache();

    private final TextCache services = new TextCache();
    private Map<String, String> taken = Map.of();
    protected StructuredLine out;

    StructuredReader(KeyRoles roles, TimeParser time) {
        this.roles = roles;
        this.time = time;
    }

    /**
     * Reads {@code b[off, off + len)}; returns false (with {@link StructuredLine#error()} set) if it is not a
     * valid line of the format. {@code transformFields} are fields a transform sets: the line's keys of those
     * names are dropped.
     */
    public final boolean read(byte[] b, int off, int len, Map<String, String> transformFields, StructuredLine into) {
        into.reset();
        this.out = into;
        this.taken = transformFields;
        boolean ok = parse(b, off, len);
        if (!ok) {
            String e = into.error;
            into.reset();
            into.error = e;
        }
        return ok;
    }

    abstract boolean parse(byte[] b, int off, int len);

    /** Whether a transform sets fields (then every key of the line is checked against them). */
    final boolean transformSetsFields() {
        return !taken.isEmpty();
    }

    final KeyRoles roles() {
        return roles;
    }

    /** Whether {@code name} may be written (not reserved, not a repeat); counts it. False sets an error when over the limits. */
    final boolean claim(String name) {
        return claim(name, RESERVED.contains(name));
    }

    private boolean claim(String name, boolean reserved) {
        if (name.length() > RecordCodec.MAX_FIELD_NAME_LENGTH) {
            out.error = "a key (with its parents) is longer than " + RecordCodec.MAX_FIELD_NAME_LENGTH + " characters";
            return false;
        }
        if (reserved || taken.containsKey(name) || !out.claimName(name)) {
            return false;
        }
        if (++out.fieldCount > RecordCodec.MAX_FIELDS) {
            out.error = "more than " + RecordCodec.MAX_FIELDS + " keys";
            return false;
        }
        return true;
    }

    final KeyRoles.Role role(String name) {
        return roles.of(name);
    }

    /** A string value given as UTF-16 chars. */
    final void string(String name, char[] c, int off, int len) {
        KeyRoles.Role role = roles.of(name);
        if (role != null && assign(role, c, off, len)) {
            return;
        }
        if (claim(name)) {
            JsonBuffer f = out.fields;
            f.raw((byte) ',').string(name).raw((byte) ':');
            JsonChars.string(c, off, len, f);
        }
    }

    /** What a (flat) key of a line means, resolved once for a reader that sees the same keys on every line. */
    record Key(String name, KeyRoles.Role role, boolean reserved, byte[] head) {}

    final Key key(String name) {
        byte[] head = new JsonBuffer(Math.max(16, name.length() + 4))
                .raw((byte) ',')
                .string(name)
                .raw((byte) ':')
                .toByteArray();
        return new Key(name, roles.of(name), RESERVED.contains(name), head);
    }

    /**
     * A string value given as UTF-8 bytes: {@code inLine} when {@code b} is the line being read (it stays as it is
     * until the record is encoded), so an id can be kept as a range of it instead of a String.
     */
    final void string(Key key, byte[] b, int off, int len, boolean inLine) {
        KeyRoles.Role role = key.role();
        if (role != null && assign(role, b, off, len, inLine)) {
            return;
        }
        if (claim(key.name(), key.reserved())) {
            out.fields.raw(key.head()).string(b, off, len);
        }
    }

    /** A JSON literal (a number, true, false) written as is; for a role key it is taken as text. */
    final void literal(String name, char[] c, int off, int len) {
        KeyRoles.Role role = roles.of(name);
        if (role != null && assign(role, c, off, len)) {
            return;
        }
        if (claim(name)) {
            JsonBuffer f = out.fields;
            f.raw((byte) ',').string(name).raw((byte) ':');
            f.ensureCapacity(len);
            for (int i = 0; i < len; i++) {
                f.raw((byte) c[off + i]);
            }
        }
    }

    private boolean assign(KeyRoles.Role role, char[] c, int off, int len) {
        switch (role) {
            case MESSAGE -> {
                if (out.message.size() > 0) {
                    return false;
                }
                JsonChars.string(c, off, len, out.message);
                return true;
            }
            case TIME -> {
                if (out.time != TimeParser.NONE || out.badTime != null) {
                    return false;
                }
                long t = len <= ascii.length && copyAscii(c, off, len) ? time.parse(ascii, 0, len) : TimeParser.NONE;
                if (t == TimeParser.NONE) {
                    out.badTime = new String(c, off, len);
                    return false; // kept as a field: nothing of the line is lost
                }
                out.time = t;
                return true;
            }
            default -> {
                return assignText(role, new String(c, off, len));
            }
        }
    }

    private boolean assign(KeyRoles.Role role, byte[] b, int off, int len, boolean inLine) {
        switch (role) {
            case MESSAGE -> {
                if (out.message.size() > 0) {
                    return false;
                }
                out.message.string(b, off, len);
                return true;
            }
            case TIME -> {
                if (out.time != TimeParser.NONE || out.badTime != null) {
                    return false;
                }
                long t = time.parse(b, off, len);
                if (t == TimeParser.NONE) {
                    out.badTime = new String(b, off, len, StandardCharsets.UTF_8);
                    return false;
                }
                out.time = t;
                return true;
            }
            case TRACE_ID, SPAN_ID -> {
                boolean trace = role == KeyRoles.Role.TRACE_ID;
                if (trace ? out.hasTraceId() : out.hasSpanId()) {
                    return false;
                }
                // A range of the line, read when encoded; only ASCII, whose String and bytes encode alike (ill-formed
                // UTF-8 would get one U+FFFD per byte from the bytes, one per ill-formed run from a String).
                if (inLine && (out.src == null || out.src == b) && ByteScan.isAscii(b, off, off + len)) {
                    out.src = b;
                    if (trace) {
                        out.traceOff = off;
                        out.traceLen = len;
                        out.traceQuoted = false;
                    } else {
                        out.spanOff = off;
                        out.spanLen = len;
                        out.spanQuoted = false;
                    }
                    return true;
                }
                return assignText(role, new String(b, off, len, StandardCharsets.UTF_8));
            }
            case LEVEL -> {
                return assignText(role, levels.get(b, off, len));
            }
            case SERVICE, REGION -> {
                return assignText(role, services.get(b, off, len));
            }
            default -> throw new AssertionError(role);
        }
    }

    private boolean assignText(KeyRoles.Role role, String v) {
        switch (role) {
            case LEVEL -> {
                if (out.level != null) {
                    return false;
                }
                out.level = v;
            }
            case SERVICE -> {
                if (out.service != null) {
                    return false;
                }
                out.service = v;
            }
            case REGION -> {
                if (out.region != null) {
                    return false;
                }
                out.region = v;
            }
            case TRACE_ID -> {
                if (out.hasTraceId()) {
                    return false;
                }
                out.traceId = v;
            }
            case SPAN_ID -> {
                if (out.hasSpanId()) {
                    return false;
                }
                out.spanId = v;
            }
            default -> throw new AssertionError(role);
        }
        return true;
    }

    private boolean copyAscii(char[] c, int off, int len) {
        for (int i = 0; i < len; i++) {
            char ch = c[off + i];
            if (ch > 0x7F) {
                return false;
            }
            ascii[i] = (byte) ch;
        }
        return true;
    }
}
