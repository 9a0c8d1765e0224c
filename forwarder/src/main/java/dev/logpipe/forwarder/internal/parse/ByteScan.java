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

    /** The eight bytes at {@code b[i]}, little-endian. */
    static long word(byte[] b, int i) {
        return (long) LONGS.get(b, i);
    }

    /**
     * Whether {@code b} at {@code i} starts with up to 16 bytes given as two little-endian words and the masks of
     * their bytes ({@link #wordOf}, {@link #maskOf}); the caller makes sure 16 bytes can be read at {@code i}.
     */
    static boolean startsWithWords(byte[] b, int i, long word0, long mask0, long word1, long mask1) {
        return (((long) LONGS.get(b, i) ^ word0) & mask0) == 0 && (((long) LONGS.get(b, i + 8) ^ word1) & mask1) == 0;
    }

    /** Word {@code w} (0 or 1) of the first 16 bytes of {@code b}, zero past its end. */
    static long wordOf(byte[] b, int w) {
        return wordOf(b, 0, b.length, w);
    }

    /** Word {@code w} (0 or 1) of the first 16 bytes of {@code b[from, from + n)}, zero past {@code n}. */
    static long wordOf(byte[] b, int from, int n, int w) {
        long word = 0;
        for (int j = Math.min(n - 8 * w, 8) - 1; j >= 0; j--) {
            word |= (b[from + 8 * w + j] & 0xFFL) << (8 * j);
        }
        return word;
    }

    /** The mask of word {@code w} (0 or 1) for a compare of the first {@code n} bytes (all 16 if more). */
    static long maskOf(int n, int w) {
        int bytes = Math.max(0, Math.min(n - 8 * w, 8));
        return bytes == 8 ? -1L : (1L << (8 * bytes)) - 1;
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
