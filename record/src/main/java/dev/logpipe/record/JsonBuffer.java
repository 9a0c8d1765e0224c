package dev.logpipe.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with the few JSON primitives the hot encoding paths need. Strings are
 * written from UTF-8 bytes: control characters, quotes and backslashes are escaped, and invalid UTF-8
 * is replaced by U+FFFD so the output is always valid JSON. Not thread-safe; reuse it with {@link #reset}.
 */
public final class JsonBuffer {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLACEMENT = {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD};
    /** 0 = copy as is, 1 = needs a short escape, 2 = needs \\u00XX, 3 = first byte of a multi-byte sequence. */
    private static final byte[] CLASS = new byte[256];

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte[] SHORT_ESCAPE = new byte[256];
    private static final byte[] DIGIT_PAIRS = new byte[200];
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        for (int c = 0; c < 0x20; c++) {
            CLASS[c] = 2;
        }
        CLASS['"'] = 1;
        CLASS['\\'] = 1;
        CLASS['\n'] = 1;
        CLASS['\r'] = 1;
        CLASS['\t'] = 1;
        CLASS['\b'] = 1;
        CLASS['\f'] = 1;
        for (int c = 0x80; c < 0x100; c++) {
            CLASS[c] = 3;
        }
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[i * 2] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[i * 2 + 1] = (byte) ('0' + i % 10);
        }
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < 19; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
        SHORT_ESCAPE['"'] = '"';
        SHORT_ESCAPE['\\'] = '\\';
        SHORT_ESCAPE['\n'] = 'n';
        SHORT_ESCAPE['\r'] = 'r';
        SHORT_ESCAPE['\t'] = 't';
        SHORT_ESCAPE['\b'] = 'b';
        SHORT_ESCAPE['\f'] = 'f';
    }

    private byte[] bytes;
    private int size;

    public JsonBuffer(int initialCapacity) {
        if (initialCapacity < 16) {
            throw new IllegalArgumentException("initialCapacity must be >= 16, was " + initialCapacity);
        }
        bytes = new byte[initialCapacity];
    }

    public void reset() {
        size = 0;
    }

    public int size() {
        return size;
    }

    /** The backing array; valid up to {@link #size()} until the next write. */
    public byte[] array() {
        return bytes;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    public void ensureCapacity(int extra) {
        if (size + extra > bytes.length) {
            long wanted = Math.max((long) bytes.length * 2, (long) size + extra);
            if (wanted > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("JSON buffer would exceed 2 GiB");
            }
            bytes = Arrays.copyOf(bytes, (int) wanted);
        }
    }

    /** Counts {@code n} bytes that the caller wrote into {@link #array()} after {@link #ensureCapacity}. */
    public void advance(int n) {
        if (n < 0 || size + n > bytes.length) {
            throw new IllegalArgumentException("cannot advance by " + n + " at " + size + " of " + bytes.length);
        }
        size += n;
    }

    public JsonBuffer raw(byte b) {
        ensureCapacity(1);
        bytes[size++] = b;
        return this;
    }

    public JsonBuffer raw(byte[] src) {
        return raw(src, 0, src.length);
    }

    public JsonBuffer raw(byte[] src, int off, int len) {
        ensureCapacity(len);
        System.arraycopy(src, off, bytes, size, len);
        size += len;
        return this;
    }

    /** Appends ASCII text that needs no escaping (keys and punctuation we write ourselves). */
    public JsonBuffer ascii(String s) {
        int n = s.length();
        ensureCapacity(n);
        for (int i = 0; i < n; i++) {
            bytes[size++] = (byte) s.charAt(i);
        }
        return this;
    }

    public JsonBuffer number(long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                return ascii("-9223372036854775808");
            }
            raw((byte) '-');
            v = -v;
        }
        int digits = digits(v);
        ensureCapacity(digits);
        int pos = size + digits;
        size = pos;
        byte[] dst = bytes;
        while (v >= 100) {
            int pair = (int) (v % 100);
            v /= 100;
            dst[--pos] = DIGIT_PAIRS[pair * 2 + 1];
            dst[--pos] = DIGIT_PAIRS[pair * 2];
        }
        if (v >= 10) {
            dst[--pos] = DIGIT_PAIRS[(int) v * 2 + 1];
            dst[--pos] = DIGIT_PAIRS[(int) v * 2];
        } else {
            dst[--pos] = (byte) ('0' + v);
        }
        return this;
    }

    private static int digits(long v) {
        int d = 1;
        while (d < 19 && v >= POWERS_OF_TEN[d]) {
            d++;
        }
        return d;
    }

    /** Appends a quoted JSON string. */
    public JsonBuffer string(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        return string(utf8, 0, utf8.length);
    }

    /** Appends a quoted JSON string from UTF-8 bytes, escaping as needed and replacing invalid UTF-8. */
    public JsonBuffer string(byte[] src, int off, int len) {
        // Reserve once, then write unchecked: short strings get the worst case (every byte a six-byte
        // backslash-u escape), long ones their exact escaped length.
        ensureCapacity(len <= 16 * 1024 ? len * 6 + 2 : escapedLength(src, off, len) + 2);
        byte[] dst = bytes;
        int pos = size;
        dst[pos++] = '"';
        int end = off + len;
        int i = off;
        while (i < end) {
            int runStart = i;
            // Skip clean bytes eight at a time, then one at a time up to the next byte that needs care.
            while (i + 8 <= end && isClean((long) LONGS.get(src, i))) {
                i += 8;
            }
            while (i < end && CLASS[src[i] & 0xFF] == 0) {
                i++;
            }
            int run = i - runStart;
            if (run > 0) {
                System.arraycopy(src, runStart, dst, pos, run);
                pos += run;
            }
            if (i >= end) {
                break;
            }
            int b = src[i] & 0xFF;
            switch (CLASS[b]) {
                case 1 -> {
                    dst[pos++] = '\\';
                    dst[pos++] = SHORT_ESCAPE[b];
                    i++;
                }
                case 2 -> {
                    dst[pos++] = '\\';
                    dst[pos++] = 'u';
                    dst[pos++] = '0';
                    dst[pos++] = '0';
                    dst[pos++] = HEX[b >> 4];
                    dst[pos++] = HEX[b & 0xF];
                    i++;
                }
                default -> {
                    int n = validSequenceLength(src, i, end);
                    if (n > 0) {
                        System.arraycopy(src, i, dst, pos, n);
                        pos += n;
                        i += n;
                    } else {
                        dst[pos++] = REPLACEMENT[0];
                        dst[pos++] = REPLACEMENT[1];
                        dst[pos++] = REPLACEMENT[2];
                        i++;
                    }
                }
            }
        }
        dst[pos++] = '"';
        size = pos;
        return this;
    }

    private static int escapedLength(byte[] src, int off, int len) {
        int n = 0;
        int end = off + len;
        for (int i = off; i < end; ) {
            int b = src[i] & 0xFF;
            switch (CLASS[b]) {
                case 0 -> {
                    n++;
                    i++;
                }
                case 1 -> {
                    n += 2;
                    i++;
                }
                case 2 -> {
                    n += 6;
                    i++;
                }
                default -> {
                    int k = validSequenceLength(src, i, end);
                    n += k > 0 ? k : 3;
                    i += k > 0 ? k : 1;
                }
            }
        }
        return n;
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

    /** Length of the well-formed UTF-8 sequence starting at {@code i}, or 0 if it is malformed. */
    private static int validSequenceLength(byte[] src, int i, int end) {
        return Utf8.sequenceLength(src, i, end);
    }
}
