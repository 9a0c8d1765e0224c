package dev.logpipe.forwarder.internal.parse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A small cache of Strings by their UTF-8 bytes, for values a file repeats (levels, service names): a hit costs a
 * hash and a compare instead of a String. A miss replaces the slot. Not thread-safe.
 */
final class TextCache {
    private static final int SLOTS = 64;
    /** Texts longer than this are not cached (they are rarely repeated values). */
    private static final int MAX_LENGTH = 64;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    String get(byte[] b, int off, int len) {
        int slot = hash(b, off, len) & (SLOTS - 1);
        byte[] k = keys[slot];
        if (k != null && k.length == len && Arrays.equals(k, 0, len, b, off, off + len)) {
            return values[slot];
        }
        String v = new String(b, off, len, StandardCharsets.UTF_8);
        if (len <= MAX_LENGTH) {
            keys[slot] = Arrays.copyOfRange(b, off, off + len);
            values[slot] = v;
        }
        return v;
    }

    /**
     * FNV-1a over every byte, its high bits folded down: a formula over the ends alone put "info" and "INFO" in
     * one slot.
     */
    static int hash(byte[] b, int off, int len) {
        int h = FNV_START;
        for (int k = 0; k < len; k++) {
            h = (h ^ b[off + k]) * FNV_PRIME;
        }
        return fold(h);
    }

    /** FNV-1a's start and prime: the readers also hash a key while they scan it, and then {@link #fold} it. */
    static final int FNV_START = 0x811C9DC5;

    static final int FNV_PRIME = 0x01000193;

    static int fold(int h) {
        return h ^ (h >>> 15);
    }
}
