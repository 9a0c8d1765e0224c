package dev.logpipe.archive.format;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.cursors.LongCursor;
import java.nio.ByteBuffer;
import java.util.Collection;

/**
 * A block's Bloom filter over its tokens (docs/archive-format.md#token-filter): {@code m} bits (a multiple of 64),
 * {@code k} probes by double hashing of a 64-bit hash of the token's UTF-16 chars (FNV-1a, then the MurmurHash3
 * finalizer). {@link #mightContain} false means no record of the block has the token. Immutable once built.
 */
public final class TokenFilter {
    /** Bits per distinct token (about 2% false positives with {@link #PROBES}). */
    public static final int BITS_PER_TOKEN = 8;

    public static final int PROBES = 5;

    private final long[] bits;
    private final int probes;

    private TokenFilter(long[] bits, int probes) {
        this.bits = bits;
        this.probes = probes;
    }

    /** A filter holding every token of {@code tokens} (distinct). */
    public static TokenFilter of(Collection<String> tokens) {
        LongHashSet hashes = new LongHashSet(tokens.size());
        for (String t : tokens) {
            hashes.add(hash(t));
        }
        return ofHashes(hashes);
    }

    /** A filter holding the tokens whose {@link #hash}es are {@code hashes} (distinct tokens, distinct hashes). */
    static TokenFilter ofHashes(LongHashSet hashes) {
        long m = Math.max(64, ((long) hashes.size() * BITS_PER_TOKEN + 63) / 64 * 64);
        TokenFilter f = new TokenFilter(new long[(int) (m / 64)], PROBES);
        for (LongCursor h : hashes) {
            f.put(h.value);
        }
        return f;
    }

    /** Reads a filter written by {@link #toBytes}. */
    static TokenFilter fromBytes(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int probes = b.getInt();
        long[] bits = new long[(bytes.length - 4) / 8];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = b.getLong();
        }
        if (probes < 1 || bits.length == 0 || 4 + bits.length * 8 != bytes.length) {
            throw new IllegalArgumentException("not a token filter: " + bytes.length + " bytes, " + probes + " probes");
        }
        return new TokenFilter(bits, probes);
    }

    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(4 + bits.length * 8);
        b.putInt(probes);
        for (long word : bits) {
            b.putLong(word);
        }
        return b.array();
    }

    private void put(long h) {
        long h2 = fmix(h ^ 0x9E3779B97F4A7C15L) | 1;
        long m = bits.length * 64L;
        for (int i = 0; i < probes; i++) {
            long bit = Long.remainderUnsigned(h + i * h2, m);
            bits[(int) (bit >>> 6)] |= 1L << bit;
        }
    }

    public boolean mightContain(String token) {
        long h = hash(token);
        long h2 = fmix(h ^ 0x9E3779B97F4A7C15L) | 1;
        long m = bits.length * 64L;
        for (int i = 0; i < probes; i++) {
            long bit = Long.remainderUnsigned(h + i * h2, m);
            if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The bytes the filter takes in an archive. */
    public int sizeBytes() {
        return 4 + bits.length * 8;
    }

    static long hash(String s) {
        return fmix(fnv(FNV_OFFSET, s));
    }

    /** The hash of the concatenation of the parts, without making it. */
    static long hash(String a, String b) {
        return fmix(fnv(fnv(FNV_OFFSET, a), b));
    }

    /** The hash of the concatenation of the parts, without making it. */
    static long hash(String a, String b, String c, String d) {
        return fmix(fnv(fnv(fnv(fnv(FNV_OFFSET, a), b), c), d));
    }

    /** The hash of the concatenation of the parts, without making it. */
    static long hash(String a, String b, String c, String d, String e) {
        return fmix(fnv(fnv(fnv(fnv(fnv(FNV_OFFSET, a), b), c), d), e));
    }

    /** The hash of {@code prefix} followed by {@code length} chars of {@code chars}, without making the string. */
    static long hash(String prefix, char[] chars, int length) {
        long h = fnv(FNV_OFFSET, prefix);
        for (int i = 0; i < length; i++) {
            h ^= chars[i];
            h *= 0x100000001b3L;
        }
        return fmix(h);
    }

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;

    /** FNV-1a over the UTF-16 chars of {@code s}, continuing from {@code h}. */
    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    private static long fmix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb93fe53a7ed5L;
        k ^= k >>> 33;
        return k;
    }
}
