package dev.logpipe.forwarder.internal.parse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The flattened key names {@link JsonFastPath} must recognise, looked up by their bytes and hash without a String:
 * each {@code parser.keys} name to its {@link KeyRoles.Role}, and each reserved schema name to {@link #RESERVED}.
 * Open addressing over a fixed table; built once, read-only afterwards.
 */
final class KeyTable {
    /** What a reserved name (never written as a field) maps to. */
    static final Object RESERVED = new Object();

    private static final int TABLE = 256;

    private final byte[][] names = new byte[TABLE][];
    private final Object[] values = new Object[TABLE];

    KeyTable(KeyRoles roles) {
        for (Map.Entry<String, KeyRoles.Role> e : roles.all().entrySet()) {
            put(e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue());
        }
        for (String r : StructuredReader.RESERVED) {
            byte[] n = r.getBytes(StandardCharsets.UTF_8);
            if (lookup(n, 0, n.length, TextCache.hash(n, 0, n.length)) == null) {
                put(n, RESERVED);
            }
        }
    }

    private void put(byte[] n, Object v) {
        int slot = TextCache.hash(n, 0, n.length) & (TABLE - 1);
        while (names[slot] != null) {
            slot = (slot + 1) & (TABLE - 1);
        }
        names[slot] = n;
        values[slot] = v;
    }

    /** The role or {@link #RESERVED} of {@code n[off, off + len)}, whose {@link TextCache#hash} is {@code h}; or null. */
    Object lookup(byte[] n, int off, int len, int h) {
        int slot = h & (TABLE - 1);
        for (int probes = 0; probes < TABLE; probes++) {
            byte[] k = names[slot];
            if (k == null) {
                return null;
            }
            if (k.length == len && Arrays.equals(k, 0, len, n, off, off + len)) {
                return values[slot];
            }
            slot = (slot + 1) & (TABLE - 1);
        }
        return null;
    }
}
