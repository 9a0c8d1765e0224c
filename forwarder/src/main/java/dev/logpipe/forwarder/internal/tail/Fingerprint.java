package dev.logpipe.forwarder.internal.tail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A hash of a file's first bytes: up to and including its first newline, at most {@link #MAX_BYTES}.
 * Together with device and inode it tells a file apart from a new one that reuses its inode. It is
 * final once the first line is complete (or the file has MAX_BYTES), which is before any record of the
 * file can be published, so record ids derived from it never change.
 *
 * @param bytes how many leading bytes the hash covers
 * @param complete false while the file has no newline and fewer than MAX_BYTES bytes
 */
public record Fingerprint(long hash, int bytes, boolean complete) {
    public static final int MAX_BYTES = 256;

    public String hex() {
        return String.format("%016x", hash);
    }

    /** Reads the fingerprint of an open file. */
    public static Fingerprint of(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(MAX_BYTES);
        readFully(ch, buf, 0);
        int n = buf.position();
        byte[] a = buf.array();
        for (int i = 0; i < n; i++) {
            if (a[i] == '\n') {
                return new Fingerprint(hash(a, i + 1), i + 1, true);
            }
        }
        return new Fingerprint(hash(a, n), n, n == MAX_BYTES);
    }

    /** Whether the file's first {@code bytes} bytes hash to {@code expected}. */
    public static boolean matches(FileChannel ch, long expected, int bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(bytes);
        readFully(ch, buf, 0);
        return buf.position() == bytes && hash(buf.array(), bytes) == expected;
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            int r = ch.read(buf, pos + buf.position());
            if (r < 0) {
                return;
            }
        }
    }

    static long hash(byte[] a, int n) {
        long h = 0xCBF29CE484222325L ^ n;
        for (int i = 0; i < n; i++) {
            h ^= a[i] & 0xFF;
            h *= 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
