package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.RecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The common shape of a JSON log line read in one pass over its bytes, without a parser object, a String per
 * key or a copy of a value: objects (nested ones flattened), strings (copied as they are written, escapes
 * included, UTF-8 checked), numbers, booleans and nulls. Anything else (arrays, {@code \\u} escapes, an escape
 * in a level or id, anything invalid, anything over the limits) is left to Jackson: {@link #read} then
 * returns false and the caller starts again on the slow path, which alone decides what is invalid. It
 * produces the same record as {@link JsonLineReader}'s Jackson path for the lines it accepts, and the same bytes but
 * for escapes, which it copies as written: a {@code \/} stays {@code \/} where the Jackson path writes {@code /}
 * (the same string once read).
 * Not thread-safe.
 */
final class JsonFastPath extends JsonCursor {
    private final TimeParser time;
    /** Level and service values repeat: their Strings are cached. */
    private final TextCache levels = new TextCache();

    private final TextCache services = new TextCache();
    /** Unmixed FNV-1a hash of the flattened name being read. */
    private int nameHash;
    /** The flattened names with a role or reserved. */
    private final KeyTable keys;

    private StructuredLine out;
    /** The flattened name being built: the prefix of the enclosing objects, then the key. */
    private byte[] name = new byte[256];
    /** Where the current flattened name is: {@link #name} from 0, or (a top-level key) the line itself. */
    private byte[] nameArr;

    private int nameOff;
    private int lineNo;
    /** The shape of the last line read in full, and whether the line being read in full is learned. */
    private final JsonShape shape = new JsonShape();

    private boolean learning;
    private int missStreak;
    /** Names claimed as fields in this line, for duplicate detection. */
    private final ClaimedNames claimed = new ClaimedNames();

    JsonFastPath(KeyRoles roles, TimeParser time) {
        this.time = time;
        this.keys = new KeyTable(roles);
    }

    /** True if the line was read completely into {@code into}; false: use the slow path (nothing is decided). */
    boolean read(byte[] bytes, int off, int len, StructuredLine into) {
        b = bytes;
        end = off + len;
        out = into;
        lineNo++;
        // After a few lines in a row of another shape, the shape is tried (and learned) on every 32nd line only.
        boolean attempt = missStreak < 4 || (lineNo & 31) == 0;
        if (attempt && shape.valid) {
            i = off;
            failed = false;
            if (shaped()) {
                missStreak = 0;
                return true;
            }
            missStreak++;
            into.reset();
        }
        learning = attempt;
        if (learning) {
            shape.begin();
        }
        i = off;
        claimed.clear();
        failed = false;
        boolean ok = full();
        if (ok && learning) {
            shape.commit(b, off, end, out.fieldCount);
        }
        learning = false;
        return ok;
    }

    /** Reads the line key by key. */
    private boolean full() {
        skipSpace();
        if (i >= end || b[i] != '{') {
            return false;
        }
        i++;
        if (!object(0, TextCache.FNV_START, 1) || failed) {
            return false;
        }
        skipSpace();
        return i == end;
    }

    /** Reads a line of the learned shape: its gaps compared as bytes, its values read, the shape's decisions applied. */
    private boolean shaped() {
        JsonShape s = shape;
        byte[] g = s.gaps;
        int n = s.count;
        // Fields not yet copied: b[runFrom, runTo), values with the heads between them (JsonShape.joins).
        int runFrom = 0;
        int runTo = 0;
        // The fields written are disjoint pieces of the line plus the shape's heads: room for them all is made
        // once, so each piece is a bare copy into the array (written at p, counted when the line is done).
        JsonBuffer f = out.fields;
        f.ensureCapacity(end - i + s.headsLength());
        byte[] dst = f.array();
        int p = f.size();
        for (int k = 0; k < n; k++) {
            int gl = s.gapLen[k];
            int go = s.gapOff[k];
            if (end - i <= gl) {
                return false;
            }
            if (gl <= 16 && end - i >= 16) { // the usual gap (",\"level\":"): compared as two words
                if (!ByteScan.startsWithWords(b, i, s.gapWord0[k], s.gapMask0[k], s.gapWord1[k], s.gapMask1[k])) {
                    return false;
                }
            } else if (!Arrays.equals(b, i, i + gl, g, go, go + gl)) {
                return false;
            }
            i += gl;
            int start = i;
            int len;
            boolean quoted;
            byte c = b[i];
            switch (s.kinds[k]) {
                case JsonShape.STRING -> {
                    if (c != '"') {
                        return false;
                    }
                    len = scanString();
                    if (len < 0) {
                        return false;
                    }
                    start++;
                    quoted = true;
                }
                case JsonShape.LITERAL -> {
                    if (c == 't' || c == 'f' ? !word(c) : c == 'n' || !number()) {
                        return false;
                    }
                    len = i - start;
                    quoted = false;
                    escaped = false;
                }
                default -> {
                    if (c != 'n' || !word(c)) {
                        return false;
                    }
                    continue;
                }
            }
            byte a = s.actions[k];
            if (a == JsonShape.SKIP) {
                continue;
            }
            if (a != JsonShape.FIELD) {
                boolean done = assign(s.roles[k], start, len, escaped, quoted);
                if (failed) {
                    return false;
                }
                if (done) {
                    continue;
                }
                if (a == JsonShape.ROLE) {
                    return false; // not as learned: the line is read in full
                }
            }
            if (++out.fieldCount > RecordCodec.MAX_FIELDS) {
                return false;
            }
            if (s.joins[k]) {
                runTo = i;
                continue;
            }
            int run = runTo - runFrom;
            System.arraycopy(b, runFrom, dst, p, run);
            p += run;
            int hl = s.headLen[k];
            System.arraycopy(s.heads, s.headOff[k], dst, p, hl);
            p += hl;
            runFrom = quoted ? start - 1 : start;
            runTo = i;
        }
        int run = runTo - runFrom;
        System.arraycopy(b, runFrom, dst, p, run);
        p += run;
        int gl = s.gapLen[n];
        int go = s.gapOff[n];
        if (end - i != gl || !Arrays.equals(b, i, end, g, go, go + gl)) {
            return false;
        }
        f.advance(p - f.size());
        return true;
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
            // The flattened name's hash is computed while the key is scanned (FNV-1a, as TextCache.hash does).
            int h = prefix == 0 ? TextCache.FNV_START : (prefixHash ^ '.') * TextCache.FNV_PRIME;
            while (true) {
                if (i >= end) {
                    return false;
                }
                byte c = b[i];
                if (c == '"') {
                    break;
                }
                if (c < 0x20 || c == '\\') {
                    return false; // escaped, control or non-ASCII keys (negative bytes): the slow path
                }
                h = (h ^ c) * TextCache.FNV_PRIME;
                i++;
            }
            int keyLen = i - keyStart;
            i++;
            int nameLen = prefix == 0 ? keyLen : prefix + 1 + keyLen;
            if (nameLen > RecordCodec.MAX_FIELD_NAME_LENGTH) {
                return false;
            }
            if (prefix > 0) {
                if (name.length < nameLen) {
                    name = Arrays.copyOf(name, Math.max(nameLen, name.length * 2));
                }
                name[prefix] = '.';
                System.arraycopy(b, keyStart, name, prefix + 1, keyLen);
                nameArr = name;
                nameOff = 0;
            } else {
                nameArr = b; // a top-level name is read where it is; copied only if it prefixes a nested object
                nameOff = keyStart;
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
            if (nameArr != name) {
                if (name.length < nameLen) {
                    name = Arrays.copyOf(name, Math.max(nameLen, name.length * 2));
                }
                System.arraycopy(nameArr, nameOff, name, 0, nameLen);
            }
            return object(nameLen, h, depth + 1);
        }
        if (c == '"') {
            int start = i + 1;
            int len = scanString();
            return len >= 0 && scalar(nameLen, start, len, escaped, true);
        }
        int start = i;
        if (c == 't' || c == 'f' || c == 'n') {
            if (!word(c)) {
                return false;
            }
            if (c == 'n') {
                if (learning) {
                    learn(start, JsonShape.NULL, JsonShape.SKIP, null, nameLen);
                }
                return true;
            }
            return scalar(nameLen, start, i - start, false, false);
        }
        if (!number()) {
            return false;
        }
        return scalar(nameLen, start, i - start, false, false);
    }

    /**
     * A scalar value: a string's raw content {@code b[start, start + len)}, still in its JSON escaping
     * ({@code quoted}), or a number or boolean, written as it is.
     */
    private boolean scalar(int nameLen, int start, int len, boolean escaped, boolean quoted) {
        Object role = keys.lookup(nameArr, nameOff, nameLen, TextCache.fold(nameHash));
        boolean firstTime = role == KeyRoles.Role.TIME && out.time == TimeParser.NONE && out.badTime == null;
        int from = quoted ? start - 1 : start; // a string is written with its quotes
        byte action;
        if (role instanceof KeyRoles.Role r && assign(r, start, len, escaped, quoted)) {
            action = firstTime ? JsonShape.TIME_OR_FIELD : JsonShape.ROLE;
        } else if (role == KeyTable.RESERVED || !claim(nameLen)) {
            action = JsonShape.SKIP;
        } else {
            field(nameLen, from, quoted ? len + 2 : len);
            action = firstTime ? JsonShape.TIME_OR_FIELD : JsonShape.FIELD;
        }
        if (learning) {
            learn(from, quoted ? JsonShape.STRING : JsonShape.LITERAL, action, role, nameLen);
        }
        return out.fieldCount <= RecordCodec.MAX_FIELDS;
    }

    /** Notes the value that started at {@code start} and ends before {@link #i} in the shape being learned. */
    private void learn(int start, byte kind, byte action, Object role, int nameLen) {
        shape.add(start, i, kind, action, role instanceof KeyRoles.Role r ? r : null, nameArr, nameOff, nameLen);
    }

    /** Appends {@code ,"name":} and {@code b[start, start + len)} to the fields. */
    private void field(int nameLen, int start, int len) {
        JsonBuffer f = out.fields;
        int n = nameLen + len + 4;
        f.ensureCapacity(n);
        byte[] a = f.array();
        int p = f.size();
        a[p] = ',';
        a[p + 1] = '"';
        System.arraycopy(nameArr, nameOff, a, p + 2, nameLen);
        p += 2 + nameLen;
        a[p] = '"';
        a[p + 1] = ':';
        System.arraycopy(b, start, a, p + 2, len);
        f.advance(n);
    }

    /** Like StructuredReader's: false means "write it as a field". */
    private boolean assign(KeyRoles.Role role, int start, int len, boolean escaped, boolean quoted) {
        switch (role) {
            case MESSAGE -> {
                if (out.message.size() > 0) {
                    return false;
                }
                if (quoted) {
                    out.message.raw(b, start - 1, len + 2); // the string as it is written, quotes included
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
                    case REGION -> {
                        if (out.region != null) {
                            return false;
                        }
                        out.region = services.get(b, start, len);
                    }
                    case TRACE_ID -> {
                        if (out.hasTraceId()) {
                            return false;
                        }
                        out.src = b;
                        out.traceOff = start;
                        out.traceLen = len;
                        out.traceQuoted = quoted;
                    }
                    case SPAN_ID -> {
                        if (out.hasSpanId()) {
                            return false;
                        }
                        out.src = b;
                        out.spanOff = start;
                        out.spanLen = len;
                        out.spanQuoted = quoted;
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
        int h = TextCache.fold(nameHash);
        if (claimed.contains(h, nameArr, nameOff, nameLen)) {
            return false;
        }
        if (++out.fieldCount > RecordCodec.MAX_FIELDS) {
            return false;
        }
        claimed.add(h, nameArr, nameOff, nameLen);
        return true;
    }
}
