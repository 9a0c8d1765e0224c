package dev.logpipe.record;

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
        if (v == Long.MIN_VALUE) {
            return ascii("-9223372036854775808");
        }
        ensureCapacity(20);
        if (v < 0) {
            bytes[size++] = '-';
            v = -v;
        }
        int start = size;
        do {
            bytes[size++] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
        for (int i = start, j = size - 1; i < j; i++, j--) {
            byte t = bytes[i];
            bytes[i] = bytes[j];
            bytes[j] = t;
        }
        return this;
    }

    /** Appends a quoted JSON string. */
    public JsonBuffer string(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        return string(utf8, 0, utf8.length);
    }

    /** Appends a quoted JSON string from UTF-8 bytes, escaping as needed and replacing invalid UTF-8. */
    public JsonBuffer string(byte[] src, int off, int len) {
        ensureCapacity(len + 2);
        bytes[size++] = '"';
        int end = off + len;
        int i = off;
        while (i < end) {
            int runStart = i;
            while (i < end && CLASS[src[i] & 0xFF] == 0) {
                i++;
            }
            if (i > runStart) {
                int run = i - runStart;
                ensureCapacity(run + 1);
                System.arraycopy(src, runStart, bytes, size, run);
                size += run;
            }
            if (i >= end) {
                break;
            }
            int b = src[i] & 0xFF;
            switch (CLASS[b]) {
                case 1 -> {
                    shortEscape(b);
                    i++;
                }
                case 2 -> {
                    unicodeEscape(b);
                    i++;
                }
                default -> i = multiByte(src, i, end);
            }
        }
        ensureCapacity(1);
        bytes[size++] = '"';
        return this;
    }

    private void shortEscape(int b) {
        ensureCapacity(2);
        bytes[size++] = '\\';
        bytes[size++] = switch (b) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '\n' -> 'n';
            case '\r' -> 'r';
            case '\t' -> 't';
            case '\b' -> 'b';
            case '\f' -> 'f';
            default -> throw new AssertionError("no short escape for " + b);
        };
    }

    private void unicodeEscape(int b) {
        ensureCapacity(6);
        bytes[size++] = '\\';
        bytes[size++] = 'u';
        bytes[size++] = '0';
        bytes[size++] = '0';
        bytes[size++] = HEX[b >> 4];
        bytes[size++] = HEX[b & 0xF];
    }

    /** Copies one well-formed UTF-8 sequence starting at {@code i}, or writes U+FFFD for a malformed byte. */
    private int multiByte(byte[] src, int i, int end) {
        int b0 = src[i] & 0xFF;
        int need;
        int min;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            need = 1;
            min = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            need = 2;
            min = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            need = 3;
            min = 0x10000;
        } else {
            replacement();
            return i + 1;
        }
        if (i + need >= end) {
            replacement();
            return i + 1;
        }
        int cp = b0 & (0x3F >> need);
        for (int k = 1; k <= need; k++) {
            int c = src[i + k] & 0xFF;
            if ((c & 0xC0) != 0x80) {
                replacement();
                return i + 1;
            }
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            replacement();
            return i + 1;
        }
        raw(src, i, need + 1);
        return i + need + 1;
    }

    private void replacement() {
        raw(REPLACEMENT);
    }
}
