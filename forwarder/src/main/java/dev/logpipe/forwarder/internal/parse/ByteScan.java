package dev.logpipe.forwarder.internal.parse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finding a byte eight bytes at a time (SWAR, like the line splitter): the parsers' separators and quotes. A
 * word's matches are marked in the high bit of each byte; a borrow can only mark bytes above a real match, so
 * the lowest mark is exact.
 */
final class ByteScan {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private ByteScan() {}

    /** The first {@code c} in {@code b[from, to)}, or -1. */
    static int indexOf(byte[] b, int from, int to, byte c) {
        long pattern = repeated(c);
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long found = matches((long) LONGS.get(b, i), pattern);
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** The first {@code c1} or {@code c2} in {@code b[from, to)}, or {@code to}. */
    static int indexOfEither(byte[] b, int from, int to, byte c1, byte c2) {
        long p1 = repeated(c1);
        long p2 = repeated(c2);
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONGS.get(b, i);
            long found = matches(x, p1) | matches(x, p2);
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == c1 || b[i] == c2) {
                return i;
            }
        }
        return to;
    }

    /** Whether every byte of {@code b[from, to)} is ASCII. */
    static boolean isAscii(byte[] b, int from, int to) {
        int i = from;
        long high = 0;
        for (; i + 8 <= to; i += 8) {
            high |= (long) LONGS.get(b, i);
        }
        for (; i < to; i++) {
            high |= b[i];
        }
        return (high & HIGHS) == 0;
    }

    /** The first control character, quote, backslash or non-ASCII byte in {@code b[from, to)}, or {@code to}. */
    static int firstSpecial(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long found = special((long) LONGS.get(b, i));
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            byte c = b[i];
            if (c < 0x20 || c == '"' || c == '\\') { // negative: not ASCII
                return i;
            }
        }
        return to;
    }

    /**
     * The high bit of each of eight bytes that is a control character, a quote, a backslash or not ASCII, or 0;
     * like {@link #matches}, the lowest mark is exact.
     */
    static long special(long x) {
        long ctrl = (x - 0x2020202020202020L) & ~x;
        return (ctrl | matches(x, QUOTES) | matches(x, BACKSLASHES) | x) & HIGHS;
    }

    private static final long QUOTES = repeated((byte) '"');
    private static final long BACKSLASHES = repeated((byte) '\\');

    private static long repeated(byte c) {
        return (c & 0xFFL) * ONES;
    }

    /** The high bit of each byte of {@code x} equal to the byte repeated in {@code pattern} (and maybe bytes above it). */
    private static long matches(long x, long pattern) {
        long y = x ^ pattern;
        return (y - ONES) & ~y & HIGHS;
    }
}
