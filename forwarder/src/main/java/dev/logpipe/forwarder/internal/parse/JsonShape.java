package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.record.RecordCodec;
import java.util.Arrays;

/**
 * The shape of the last JSON line {@link JsonFastPath} read in full: the bytes between its values (keys,
 * braces, commas, spaces: the "gaps"), each value's kind, and what was done with it (a schema field, a field
 * under its flattened name, or nothing). A line of a service's log usually has the shape of the line before
 * it; {@link JsonFastPath} then compares the gaps as bytes and applies the same decisions, instead of hashing,
 * looking up and checking each name again. A line whose gaps or value kinds differ is read in full again.
 * Decisions that depend on a value (whether the time parses) are taken again on every line; a shape in which
 * they could change a later decision (a second time key) is not kept. Not thread-safe.
 * {@code add} takes a value's position and decisions as primitives: it runs once per value of a line read in full and
 * stores them into arrays at once (not measured as a record).
 */
final class JsonShape {
    static final byte STRING = 0;
    static final byte LITERAL = 1;
    static final byte NULL = 2;

    /** Neither a schema field nor a field: reserved, repeated, or null. */
    static final byte SKIP = 0;

    static final byte FIELD = 1;
    /** Assigned to its role; this must succeed again (it depends only on the keys before it). */
    static final byte ROLE = 2;
    /** The first time key: assigned if it parses, else a field. */
    static final byte TIME_OR_FIELD = 3;

    boolean valid;
    int count;
    byte[] kinds = new byte[32];
    byte[] actions = new byte[32];
    KeyRoles.Role[] roles = new KeyRoles.Role[32];
    /** Each value's field head as the record writes it, {@code ,"flattened.name":}, at {@code heads[headOff[k]]}. */
    int[] headOff = new int[32];

    int[] headLen = new int[32];
    byte[] heads = new byte[512];
    private int headsLen;
    /**
     * Whether value k is a field that continues the field before it in the record's bytes: both are fields and
     * k's gap is exactly its head (a top-level key, no spaces). Such a run is copied from the line in one piece.
     */
    boolean[] joins = new boolean[32];

    int[] gapOff = new int[33];
    int[] gapLen = new int[33];
    /** A gap of up to 16 bytes as two little-endian words and the masks of its bytes, for a compare by words. */
    long[] gapWord0 = new long[33];

    long[] gapWord1 = new long[33];
    long[] gapMask0 = new long[33];
    long[] gapMask1 = new long[33];
    byte[] gaps = new byte[512];
    private int[] valueStart = new int[32];
    private int[] valueEnd = new int[32];
    private boolean disqualified;
    private boolean timeSeen;

    /** Starts learning from the line about to be read (the shape known so far is dropped). */
    void begin() {
        valid = false;
        count = 0;
        headsLen = 0;
        disqualified = false;
        timeSeen = false;
    }

    /** The value at {@code b[start, end)} (strings with their quotes), its kind, what was done and its name. */
    void add(int start, int end, byte kind, byte action, KeyRoles.Role role, byte[] name, int off, int len) {
        if (action == TIME_OR_FIELD || (role == KeyRoles.Role.TIME && kind != NULL)) {
            if (timeSeen) {
                disqualified = true; // a second time key: whether it is a repeat depends on the first one's value
            }
            timeSeen = true;
        }
        int k = count;
        if (k == kinds.length) {
            int n = k * 2;
            kinds = Arrays.copyOf(kinds, n);
            actions = Arrays.copyOf(actions, n);
            roles = Arrays.copyOf(roles, n);
            headOff = Arrays.copyOf(headOff, n);
            headLen = Arrays.copyOf(headLen, n);
            joins = Arrays.copyOf(joins, n);
            valueStart = Arrays.copyOf(valueStart, n);
            valueEnd = Arrays.copyOf(valueEnd, n);
            gapOff = Arrays.copyOf(gapOff, n + 1);
            gapLen = Arrays.copyOf(gapLen, n + 1);
            gapWord0 = Arrays.copyOf(gapWord0, n + 1);
            gapWord1 = Arrays.copyOf(gapWord1, n + 1);
            gapMask0 = Arrays.copyOf(gapMask0, n + 1);
            gapMask1 = Arrays.copyOf(gapMask1, n + 1);
        }
        if (headsLen + len + 4 > heads.length) {
            heads = Arrays.copyOf(heads, Math.max(heads.length * 2, headsLen + len + 4));
        }
        heads[headsLen] = ',';
        heads[headsLen + 1] = '"';
        System.arraycopy(name, off, heads, headsLen + 2, len);
        heads[headsLen + 2 + len] = '"';
        heads[headsLen + 3 + len] = ':';
        kinds[k] = kind;
        actions[k] = action;
        roles[k] = role;
        headOff[k] = headsLen;
        headLen[k] = len + 4;
        headsLen += len + 4;
        valueStart[k] = start;
        valueEnd[k] = end;
        count = k + 1;
    }

    /** The bytes of all the heads together: at most what a line of this shape writes besides its own bytes. */
    int headsLength() {
        return headsLen;
    }

    /** The line {@code b[off, end)} was read in full: its gaps complete the shape. */
    void commit(byte[] b, int off, int end, int fieldCount) {
        if (disqualified || fieldCount >= RecordCodec.MAX_FIELDS) {
            return;
        }
        int total = end - off;
        if (gaps.length < total) {
            gaps = new byte[Math.max(total, gaps.length * 2)];
        }
        int p = 0;
        int from = off;
        for (int k = 0; k <= count; k++) {
            int to = k < count ? valueStart[k] : end;
            int n = to - from;
            System.arraycopy(b, from, gaps, p, n);
            gapOff[k] = p;
            gapLen[k] = n;
            gapWord0[k] = ByteScan.wordOf(b, from, n, 0);
            gapWord1[k] = ByteScan.wordOf(b, from, n, 1);
            gapMask0[k] = ByteScan.maskOf(n, 0);
            gapMask1[k] = ByteScan.maskOf(n, 1);
            if (k < count) {
                joins[k] = k > 0
                        && actions[k] == FIELD
                        && actions[k - 1] == FIELD
                        && Arrays.equals(b, from, to, heads, headOff[k], headOff[k] + headLen[k]);
            }
            p += n;
            from = k < count ? valueEnd[k] : end;
        }
        valid = true;
    }
}
