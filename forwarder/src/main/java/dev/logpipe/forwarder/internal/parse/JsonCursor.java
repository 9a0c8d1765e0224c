package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.record.Utf8;

/**
 * A position in the bytes of one JSON line and the tokens {@link JsonFastPath} reads there: whitespace, strings
 * (checked, not unescaped), {@code true}/{@code false}/{@code null} and numbers. Each method either moves past a
 * well-formed token or answers that the line is for the slow path. A base class rather than a field so the fast
 * path reads {@code b[i]} as its own fields on the hot path. Not thread-safe.
 */
abstract class JsonCursor {
    byte[] b;
    int i;
    int end;
    /** Whether the string {@link #scanString} read last has escapes. */
    boolean escaped;

    /** At the opening quote of a string: moves past its closing quote; its length, or -1 (the slow path). */
    final int scanString() {
        int start = ++i;
        escaped = false;
        while (true) {
            while (i + 8 <= end) {
                long special = ByteScan.special(ByteScan.word(b, i));
                if (special != 0) {
                    i += Long.numberOfTrailingZeros(special) >>> 3; // the first special byte of the eight
                    break;
                }
                i += 8;
            }
            if (i >= end) {
                return -1;
            }
            int x = b[i] & 0xFF;
            if (x == '"') {
                break;
            }
            if (x < 0x20) {
                return -1;
            }
            if (x == '\\') {
                if (i + 1 >= end) {
                    return -1;
                }
                byte e = b[i + 1];
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
                    return -1; // \\u and invalid escapes: the slow path
                }
                escaped = true;
                i += 2;
                continue;
            }
            if (x >= 0x80) {
                int n = utf8Length(i);
                if (n == 0) {
                    return -1;
                }
                i += n;
                continue;
            }
            i++;
        }
        int len = i - start;
        i++;
        return len;
    }

    /** {@code true}, {@code false} or {@code null} (by its first letter {@code c}) and a delimiter after it. */
    final boolean word(byte c) {
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
        return delimiter();
    }

    final boolean number() {
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

    final void skipSpace() {
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
        return Utf8.sequenceLength(b, p, end);
    }
}
