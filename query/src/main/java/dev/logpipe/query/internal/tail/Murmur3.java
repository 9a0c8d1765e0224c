package dev.logpipe.query.internal.tail;

import dev.logpipe.index.store.read.IdBytes;

/**
 * MurmurHash3 x86_32 of an id's bytes: the same function (and so the same values) as Lucene's
 * {@code StringHelper.murmurhash3_x86_32}, which the tail's window used before, kept here so the query service hashes
 * without an engine type ({@code Murmur3Test} pins the equality).
 */
final class Murmur3 {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {}

    static int x86_32(IdBytes data, int seed) {
        int len = data.length();
        int h1 = seed;
        int roundedEnd = len & 0xfffffffc; // whole 4-byte blocks, read little-endian
        for (int i = 0; i < roundedEnd; i += 4) {
            int k1 = (data.byteAt(i) & 0xff)
                    | (data.byteAt(i + 1) & 0xff) << 8
                    | (data.byteAt(i + 2) & 0xff) << 16
                    | (data.byteAt(i + 3) & 0xff) << 24;
            h1 ^= mixK1(k1);
            h1 = Integer.rotateLeft(h1, 13);
            h1 = h1 * 5 + 0xe6546b64;
        }
        int tail = len & 0x03; // the last 1 to 3 bytes, little-endian
        if (tail > 0) {
            int k1 = data.byteAt(roundedEnd) & 0xff;
            if (tail > 1) {
                k1 |= (data.byteAt(roundedEnd + 1) & 0xff) << 8;
            }
            if (tail > 2) {
                k1 |= (data.byteAt(roundedEnd + 2) & 0xff) << 16;
            }
            h1 ^= mixK1(k1);
        }
        h1 ^= len;
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        h1 ^= h1 >>> 16;
        return h1;
    }

    private static int mixK1(int k1) {
        k1 *= C1;
        k1 = Integer.rotateLeft(k1, 15);
        return k1 * C2;
    }
}
