package dev.logpipe.forwarder.parse;

import dev.logpipe.forwarder.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.RecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The common shape of a JSON log line read in one pass over its bytes, without a parser object, a String per
 * key or a copy of a value: objects (nested ones flattened), strings (copied as they are written, escapes
 * included, UTF-8 checked), numbers, booleans and nulls. Anything else (arrays, {@code \\u} escapes, an escape
 * in a level or id, anything invalid, anything over the limits) is left to Jackson: {@link #read} then
 * returns false and the caller starts again on the slow path, which alone decides what is invalid. It
 * produces exactly what {@link JsonLineReader}'s Jackson path produces for the lines it accepts.
 * Not thread-safe.
 */
final class JsonFastPath {
    private static final Object RESERVED = new Object();
    private static final int TABLE = 256;

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private final TimeParser time;
    /** Level and service values repeat: their Strings are cached. */
    private final TextCache levels = new TextCache();
    private final TextCache services = new TextCache();
    /** Unmixed FNV-1a hash of the flattened name being read. */
    private int nameHash;
    /** Open-addressing table of flattened names: a {@link KeyRoles.Role} or {@link #RESERVED}. */
    private final byte[][] tableNames = new byte[TABLE][];
    private final Object[] tableValues = new Object[TABLE];

    private byte[] b;
    private int i;
    private int end;
    private StructuredLine out;
    /** The flattened name being built: the prefix of the enclosing objects, then the key. */
    private byte[] name = new byte[256];
    /** Names claimed as fields in this line, for duplicate detection. */
    private byte[] seen = new byte[1024];
    private int seenLen;
    private int[] seenHash = new int[64];
    private int[] seenStart = new int[64];
    private int[] seenLength = new int[64];
    private int seenCount;

    JsonFastPath(KeyRoles roles, TimeParser time) {
        this.time = time;
        for (Map.Entry<String, KeyRoles.Role> e : roles.all().entrySet()) {
            put(e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue());
        }
        for (String r : StructuredReader.RESERVED) {
            byte[] n = r.getBytes(StandardCharsets.UTF_8);
            if (lookup(n, 0, n.length) == null) {
                put(n, RESERVED);
            }
        }
    }

    private void put(byte[] n, Object v) {
        int slot = hash(n, 0, n.length) & (TABLE - 1);
        while (tableNames[slot] != null) {
            slot = (slot + 1) & (TABLE - 1);
        }
        tableNames[slot] = n;
        tableValues[slot] = v;
    }

    private Object lookup(byte[] n, int off, int len) {
        return lookup(n, off, len, hash(n, off, len));
    }

    private Object lookup(byte[] n, int off, int len, int h) {
        int slot = h & (TABLE - 1);
        for (int probes = 0; probes < TABLE; probes++) {
            byte[] k = tableNames[slot];
            if (k == null) {
                return null;
            }
            if (k.length == len && java.util.Arrays.equals(k, 0, len, n, off, off + len)) {
                return tableValues[slot];
            }
            slot = (slot + 1) & (TABLE - 1);
        }
        return null;
    }

    private static final int FNV_START = 0x811C9DC5;

    private static int hash(byte[] n, int off, int len) {
        return mix(fnv(FNV_START, n, off, len));
    }

    private static int fnv(int h, byte[] n, int off, int len) {
        for (int k = 0; k < len; k++) {
            h = (h ^ n[off + k]) * 0x01000193;
        }
        return h;
    }

    private static int mix(int h) {
        return h ^ (h >>> 15);
    }

    /** True if the line was read completely into {@code into}; false: use the slow path (nothing is decided). */
    boolean read(byte[] bytes, int off, int len, StructuredLine into) {
        b = bytes;
        i = off;
        end = off + len;
        out = into;
        seenLen = 0;
        seenCount = 0;
        failed = false;
        skipSpace();
        if (i >= end || b[i] != '{') {
            return false;
        }
        i++;
        if (!object(0, FNV_START, 1) || failed) {
            return false;
        }
        skipSpace();
        return i == end;
    }

    /** After the opening brace; {@code prefix} bytes of {@link #name} are the enclosing objects' names. */
    private boolean object(int prefix, int prefixHash, int depth) {
        if (depth > RecordCodec.MAX_NESTING_DEPTH) {
            return false;
        }
        skipSpace();
        if (i < end && b[i] == '}') {
            i++;
            return true;
        }
        while (true) {
            skipSpace();
            if (i >= end || b[i] != '"') {
                return false;
            }
            int keyStart = ++i;
            while (i < end && b[i] != '"') {
                int c = b[i] & 0xFF;
                if (c < 0x20 || c == '\\' || c >= 0x80) {
                    return false; // escaped or non-ASCII keys: the slow path
                }
                i++;
            }
            if (i >= end) {
                return false;
            }
            int keyLen = i - keyStart;
            i++;
            int nameLen = prefix == 0 ? keyLen : prefix + 1 + keyLen;
            if (nameLen > RecordCodec.MAX_FIELD_NAME_LENGTH) {
                return false;
            }
            if (name.length < nameLen) {
                name = java.util.Arrays.copyOf(name, Math.max(nameLen, name.length * 2));
            }
            int h;
            if (prefix > 0) {
                name[prefix] = '.';
                System.arraycopy(b, keyStart, name, prefix + 1, keyLen);
                h = fnv(prefixHash, name, prefix, keyLen + 1);
            } else {
                System.arraycopy(b, keyStart, name, 0, keyLen);
                h = fnv(FNV_START, b, keyStart, keyLen);
            }
            nameHash = h;
            skipSpace();
            if (i >= end || b[i] != ':') {
                return false;
            }
            i++;
            skipSpace();
            if (i >= end) {
                return false;
            }
            if (!value(nameLen, h, depth)) {
                return false;
            }
            skipSpace();
            if (i >= end) {
                return false;
            }
            if (b[i] == ',') {
                i++;
                continue;
            }
            if (b[i] == '}') {
                i++;
                return true;
            }
            return false;
        }
    }

    private boolean value(int nameLen, int h, int depth) {
        byte c = b[i];
        if (c == '{') {
            i++;
            return object(nameLen, h, depth + 1);
        }
        if (c == '"') {
            int start = ++i;
            boolean escaped = false;
            while (true) {
                while (i + 8 <= end && isClean((long) LONGS.get(b, i))) {
                    i += 8;
                }
                if (i >= end) {
                    return false;
                }
                int x = b[i] & 0xFF;
                if (x == '"') {
                    break;
                }
                if (x < 0x20) {
                    return false;
                }
                if (x == '\\') {
                    if (i + 1 >= end) {
                        return false;
                    }
                    byte e = b[i + 1];
                    if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r'
                            && e != 't') {
                        return false; // \\u and invalid escapes: the slow path
                    }
                    escaped = true;
                    i += 2;
                    continue;
                }
                if (x >= 0x80) {
                    int n = utf8Length(i);
                    if (n == 0) {
                        return false;
                    }
                    i += n;
                    continue;
                }
                i++;
            }
            int len = i - start;
            i++;
            return string(nameLen, start, len, escaped);
        }
        int start = i;
        if (c == 't' || c == 'f' || c == 'n') {
            String word = c == 't' ? "true" : c == 'f' ? "false" : "null";
            int n = word.length();
            if (i + n > end) {
                return false;
            }
            for (int k = 0; k < n; k++) {
                if (b[i + k] != word.charAt(k)) {
                    return false;
                }
            }
            i += n;
            if (!delimiter()) {
                return false;
            }
            return c == 'n' || literal(nameLen, start, n);
        }
        if (!number()) {
            return false;
        }
        return literal(nameLen, start, i - start);
    }

    private boolean number() {
        if (i < end && b[i] == '-') {
            i++;
        }
        if (i >= end) {
            return false;
        }
        if (b[i] == '0') {
            i++;
        } else if (b[i] >= '1' && b[i] <= '9') {
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
        } else {
            return false;
        }
        if (i < end && b[i] == '.') {
            i++;
            int d = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == d) {
                return false;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int d = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == d) {
                return false;
            }
        }
        return delimiter();
    }

    private boolean delimiter() {
        if (i >= end) {
            return true;
        }
        byte c = b[i];
        return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /** A string value: raw content {@code b[start, start + len)}, still in its JSON escaping. */
    private boolean string(int nameLen, int start, int len, boolean escaped) {
        Object role = lookup(name, 0, nameLen, mix(nameHash));
        if (role instanceof KeyRoles.Role r && assign(r, start, len, escaped, true)) {
            return true;
        }
        if (role == RESERVED || !claim(nameLen)) {
            return out.fieldCount <= RecordCodec.MAX_FIELDS;
        }
        JsonBuffer f = out.fields;
        f.ensureCapacity(nameLen + len + 6);
        f.raw((byte) ',').raw((byte) '"').raw(name, 0, nameLen).raw((byte) '"').raw((byte) ':').raw((byte) '"')
                .raw(b, start, len).raw((byte) '"');
        return true;
    }

    /** A number or boolean, written as it is. */
    private boolean literal(int nameLen, int start, int len) {
        Object role = lookup(name, 0, nameLen, mix(nameHash));
        if (role instanceof KeyRoles.Role r && assign(r, start, len, false, false)) {
            return true;
        }
        if (role == RESERVED || !claim(nameLen)) {
            return out.fieldCount <= RecordCodec.MAX_FIELDS;
        }
        JsonBuffer f = out.fields;
        f.ensureCapacity(nameLen + len + 4);
        f.raw((byte) ',').raw((byte) '"').raw(name, 0, nameLen).raw((byte) '"').raw((byte) ':').raw(b, start, len);
        return true;
    }

    /** Like StructuredReader's: false means "write it as a field". */
    private boolean assign(KeyRoles.Role role, int start, int len, boolean escaped, boolean quoted) {
        switch (role) {
            case MESSAGE -> {
                if (out.message.size() > 0) {
                    return false;
                }
                if (quoted) {
                    out.message.ensureCapacity(len + 2);
                    out.message.raw((byte) '"').raw(b, start, len).raw((byte) '"');
                } else {
                    out.message.string(b, start, len);
                }
                return true;
            }
            case TIME -> {
                if (out.time != TimeParser.NONE || out.badTime != null) {
                    return false;
                }
                if (escaped) {
                    failed = true;
                    return true;
                }
                long t = time.parse(b, start, len);
                if (t == TimeParser.NONE) {
                    out.badTime = new String(b, start, len, StandardCharsets.UTF_8);
                    return false;
                }
                out.time = t;
                return true;
            }
            default -> {
                if (escaped) {
                    failed = true;
                    return true;
                }
                switch (role) {
                    case LEVEL -> {
                        if (out.level != null) {
                            return false;
                        }
                        out.level = levels.get(b, start, len);
                    }
                    case SERVICE -> {
                        if (out.service != null) {
                            return false;
                        }
                        out.service = services.get(b, start, len);
                    }
                    case TRACE_ID -> {
                        if (out.hasTraceId()) {
                            return false;
                        }
                        out.src = b;
                        out.traceOff = start;
                        out.traceLen = len;
                    }
                    case SPAN_ID -> {
                        if (out.hasSpanId()) {
                            return false;
                        }
                        out.src = b;
                        out.spanOff = start;
                        out.spanLen = len;
                    }
                    default -> throw new AssertionError(role);
                }
                return true;
            }
        }
    }

    /** Set when a value needs unescaping into a String (an escaped level, id or time): the slow path redoes the line. */
    private boolean failed;

    /** Whether the flattened name may be written as a field: not a repeat in this line; counts it. */
    private boolean claim(int nameLen) {
        int h = mix(nameHash);
        for (int k = 0; k < seenCount; k++) {
            if (seenHash[k] == h && seenLength[k] == nameLen
                    && java.util.Arrays.equals(seen, seenStart[k], seenStart[k] + nameLen, name, 0, nameLen)) {
                return false;
            }
        }
        if (++out.fieldCount > RecordCodec.MAX_FIELDS) {
            return false;
        }
        if (seenCount == seenHash.length) {
            seenHash = java.util.Arrays.copyOf(seenHash, seenCount * 2);
            seenStart = java.util.Arrays.copyOf(seenStart, seenCount * 2);
            seenLength = java.util.Arrays.copyOf(seenLength, seenCount * 2);
        }
        if (seenLen + nameLen > seen.length) {
            seen = java.util.Arrays.copyOf(seen, Math.max(seen.length * 2, seenLen + nameLen));
        }
        System.arraycopy(name, 0, seen, seenLen, nameLen);
        seenHash[seenCount] = h;
        seenStart[seenCount] = seenLen;
        seenLength[seenCount] = nameLen;
        seenCount++;
        seenLen += nameLen;
        return true;
    }

    /** A small cache of Strings by their UTF-8 bytes; a miss replaces the slot. */
    private static final class TextCache {
        private final byte[][] keys = new byte[64][];
        private final String[] values = new String[64];

        String get(byte[] b, int off, int len) {
            int slot = hash(b, off, len) & 63;
            byte[] k = keys[slot];
            if (k != null && k.length == len && java.util.Arrays.equals(k, 0, len, b, off, off + len)) {
                return values[slot];
            }
            String v = new String(b, off, len, StandardCharsets.UTF_8);
            if (len <= 64) {
                keys[slot] = java.util.Arrays.copyOfRange(b, off, off + len);
                values[slot] = v;
            }
            return v;
        }
    }

    /** Whether none of eight bytes is a control character, a quote, a backslash or non-ASCII (SWAR). */
    private static boolean isClean(long x) {
        long ctrl = (x - 0x2020202020202020L) & ~x;
        long quote = x ^ 0x2222222222222222L;
        quote = (quote - 0x0101010101010101L) & ~quote;
        long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
        backslash = (backslash - 0x0101010101010101L) & ~backslash;
        return ((ctrl | quote | backslash | x) & 0x8080808080808080L) == 0;
    }

    private void skipSpace() {
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            i++;
        }
    }

    /** Length of the well-formed UTF-8 sequence at {@code b[p]}, or 0. */
    private int utf8Length(int p) {
        return dev.logpipe.record.Utf8.sequenceLength(b, p, end);
    }
}
