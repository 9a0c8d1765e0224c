package dev.logpipe.archive.format;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer with the varint and string encodings of a block's columns. Not thread-safe. */
final class Bytes {
    private byte[] buf;
    private int size;

    Bytes(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    byte[] toArray() {
        return Arrays.copyOf(buf, size);
    }

    void clear() {
        size = 0;
    }

    void add(byte b) {
        ensure(1);
        buf[size++] = b;
    }

    void add(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
    }

    /** An unsigned LEB128 varint. */
    void varint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    void zigzag(long v) {
        varint((v << 1) ^ (v >> 63));
    }

    /** Eight bytes, big-endian. */
    void fixed64(long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            add((byte) (v >>> shift));
        }
    }

    /** A string as varint (UTF-8 length + 1) then its bytes; null as 0. */
    void string(String s) {
        if (s == null) {
            varint(0);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(b.length + 1L);
        add(b);
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    /** Reads what {@link Bytes} wrote; a read past the end throws {@link IllegalArgumentException}. */
    static final class Reader {
        private final byte[] b;
        private int pos;

        Reader(byte[] b) {
            this(b, 0);
        }

        /** Reads {@code b} from {@code pos} on. */
        Reader(byte[] b, int pos) {
            this.b = b;
            this.pos = pos;
        }

        /** The bytes read (not a copy). */
        byte[] bytes() {
            return b;
        }

        int position() {
            return pos;
        }

        int remaining() {
            return b.length - pos;
        }

        boolean atEnd() {
            return pos == b.length;
        }

        byte next() {
            if (pos >= b.length) {
                throw new IllegalArgumentException("column ends early at byte " + pos);
            }
            return b[pos++];
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte x = next();
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("varint longer than 10 bytes at byte " + pos);
        }

        long fixed64() {
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (next() & 0xFF);
            }
            return v;
        }

        long zigzag() {
            long v = varint();
            return (v >>> 1) ^ -(v & 1);
        }

        String string() {
            int len = stringLength();
            if (len < 0) {
                return null;
            }
            String s = new String(b, pos, len, StandardCharsets.UTF_8);
            pos += len;
            return s;
        }

        /** Steps over a string without making it; false when it was null. */
        boolean skipString() {
            int len = stringLength();
            pos += Math.max(len, 0);
            return len >= 0;
        }

        /** Steps over {@code n} bytes. */
        void skip(int n) {
            if (n < 0 || n > b.length - pos) {
                throw new IllegalArgumentException(n + " bytes past the column's end at " + pos);
            }
            pos += n;
        }

        /** The next string's length in bytes, -1 for null, read past its length prefix. */
        private int stringLength() {
            long n = varint();
            if (n == 0) {
                return -1;
            }
            int len = Math.toIntExact(n - 1);
            if (len < 0 || len > b.length - pos) {
                throw new IllegalArgumentException("string of " + len + " bytes past the column's end at " + pos);
            }
            return len;
        }
    }
}
