package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;

/** Writes UTF-16 text (as Jackson hands it out) as a quoted JSON string in UTF-8; lone surrogates become U+FFFD. */
final class JsonChars {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private JsonChars() {}

    static void string(char[] c, int off, int len, JsonBuffer out) {
        out.ensureCapacity(len * 6 + 2);
        byte[] a = out.array();
        int p = out.size();
        a[p++] = '"';
        int end = off + len;
        for (int i = off; i < end; i++) {
            char ch = c[i];
            if (ch < 0x80) {
                if (ch >= 0x20 && ch != '"' && ch != '\\') {
                    a[p++] = (byte) ch;
                    continue;
                }
                a[p++] = '\\';
                switch (ch) {
                    case '"' -> a[p++] = '"';
                    case '\\' -> a[p++] = '\\';
                    case '\n' -> a[p++] = 'n';
                    case '\r' -> a[p++] = 'r';
                    case '\t' -> a[p++] = 't';
                    case '\b' -> a[p++] = 'b';
                    case '\f' -> a[p++] = 'f';
                    default -> {
                        a[p++] = 'u';
                        a[p++] = '0';
                        a[p++] = '0';
                        a[p++] = HEX[ch >> 4];
                        a[p++] = HEX[ch & 0xF];
                    }
                }
            } else {
                p = JsonChars.utf8(c, i, end, a, p);
                if (JsonChars.isPair(c, i, end)) {
                    i++;
                }
            }
        }
        a[p++] = '"';
        out.advance(p - out.size());
    }

    /** Whether {@code c[i]} and {@code c[i + 1]} are a surrogate pair (one code point of two chars). */
    static boolean isPair(char[] c, int i, int end) {
        return Character.isHighSurrogate(c[i]) && i + 1 < end && Character.isLowSurrogate(c[i + 1]);
    }

    /**
     * Writes the non-ASCII code point at {@code c[i]} (two chars when {@link #isPair}) as UTF-8 at {@code a[p]},
     * a lone surrogate as U+FFFD; returns the position after it.
     */
    static int utf8(char[] c, int i, int end, byte[] a, int p) {
        char ch = c[i];
        if (ch < 0x800) {
            a[p++] = (byte) (0xC0 | ch >> 6);
            a[p++] = (byte) (0x80 | ch & 0x3F);
        } else if (isPair(c, i, end)) {
            int cp = Character.toCodePoint(ch, c[i + 1]);
            a[p++] = (byte) (0xF0 | cp >> 18);
            a[p++] = (byte) (0x80 | cp >> 12 & 0x3F);
            a[p++] = (byte) (0x80 | cp >> 6 & 0x3F);
            a[p++] = (byte) (0x80 | cp & 0x3F);
        } else if (Character.isSurrogate(ch)) {
            a[p++] = (byte) 0xEF;
            a[p++] = (byte) 0xBF;
            a[p++] = (byte) 0xBD;
        } else {
            a[p++] = (byte) (0xE0 | ch >> 12);
            a[p++] = (byte) (0x80 | ch >> 6 & 0x3F);
            a[p++] = (byte) (0x80 | ch & 0x3F);
        }
        return p;
    }
}
