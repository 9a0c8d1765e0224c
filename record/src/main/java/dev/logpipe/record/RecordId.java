package dev.logpipe.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Stable idempotency keys for records. A replay of the same bytes yields the same id, so downstream
 * upserts turn at-least-once delivery into no visible duplicates (invariant I3, docs/architecture.md).
 *
 * <p>An id is 32 lowercase hex digits (128 bits). File-sourced records hash (host, file identity, start
 * offset): {@link #fileScope} hashes the first three once per file, {@link Scope#at} mixes in the offset.
 */
public final class RecordId {
    public static final int LENGTH = 32;
    /** The longest {@code record_id} a client may choose ({@link #problem}). */
    public static final int MAX_LENGTH = 128;

    private static final long SEED_A = 0x9E3779B97F4A7C15L;
    private static final long SEED_B = 0xC2B2AE3D27D4EB4FL;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** Two hex digits per byte value, high digit in the high byte. */
    private static final short[] HEX_PAIRS = new short[256];

    static {
        for (int i = 0; i < 256; i++) {
            HEX_PAIRS[i] = (short) ((HEX[i >>> 4] << 8) | HEX[i & 0xF]);
        }
    }

    private RecordId() {}

    /**
     * What any {@code record_id} may be, wherever a record enters (collector, indexer): 1 to {@link #MAX_LENGTH}
     * characters of ASCII letters, digits and {@code . _ : -}, and not only dots. It is an idempotency key, a
     * document id, part of a partition key and one segment of a URL ({@code /api/v1/context/{id}}), never free text:
     * a {@code /} would split the segment and {@code .} or {@code ..} are path steps every URL parser resolves, so an
     * id like {@code ../../v1/admin/tenants} could never be asked for. Returns null when {@code id} is absent
     * (null or empty: the id is derived) or fine, else why it is refused, without quoting it.
     */
    public static String problem(String id) {
        if (id == null || id.isEmpty()) {
            return null;
        }
        if (id.length() > MAX_LENGTH) {
            return "record_id is longer than " + MAX_LENGTH + " characters";
        }
        boolean onlyDots = true;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == ':'
                    || c == '-';
            if (!ok) {
                return "record_id may hold only letters, digits and . _ : - (character " + (i + 1) + " is not one)";
            }
            onlyDots &= c == '.';
        }
        return onlyDots ? "record_id must not be only dots (a URL path step)" : null;
    }

    /** The id scope of one source file: every record of that file gets an id from this scope and its start offset. */
    public static Scope fileScope(String host, long device, long inode, String fingerprint) {
        byte[] key =
                (host + '\u0000' + device + '\u0000' + inode + '\u0000' + fingerprint).getBytes(StandardCharsets.UTF_8);
        return new Scope(hash64(key, 0, key.length, SEED_A), hash64(key, 0, key.length, SEED_B));
    }

    /** An id derived from arbitrary bytes (for records that have no file position, e.g. a collector filling a missing id). */
    public static String ofContent(byte[] content) {
        return ofContent(0, content, 0, content.length);
    }

    /**
     * An id derived from {@code salt} and {@code len} bytes of {@code content} (a collector: salt = tenant and line
     * number, content = the line). Reads eight bytes per step, two independent lanes, one pass.
     */
    public static String ofContent(long salt, byte[] content, int off, int len) {
        long a = SEED_A ^ salt ^ (len * 0x9E3779B97F4A7C15L);
        long b = SEED_B ^ Long.rotateLeft(salt, 29) ^ len;
        int i = off;
        int end = off + len;
        for (; i + 8 <= end; i += 8) {
            long k = (long) LONGS.get(content, i);
            a = Long.rotateLeft(a ^ fmixLane(k), 27) * 0x9E3779B97F4A7C15L + 0x52DCE729;
            b = Long.rotateLeft(b ^ fmixLane(k ^ 0x5555555555555555L), 31) * 0xC2B2AE3D27D4EB4FL + 0x38495AB5;
        }
        long tail = 0;
        for (int shift = 0; i < end; i++, shift += 8) {
            tail |= (content[i] & 0xFFL) << shift;
        }
        a = fmix64(a ^ fmixLane(tail));
        b = fmix64(b ^ fmixLane(tail ^ 0x5555555555555555L));
        byte[] out = new byte[LENGTH];
        writeHex(a, out, 0);
        writeHex(b, out, 16);
        return new String(out, StandardCharsets.US_ASCII);
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static long fmixLane(long k) {
        k *= 0x87C37B91114253D5L;
        k = Long.rotateLeft(k, 31);
        return k * 0x4CF5AD432745937FL;
    }

    /** A 64-bit hash of a short string (for salts such as a tenant id). */
    public static long hashOf(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return hash64(b, 0, b.length, SEED_A);
    }

    /** Two independent 64-bit hashes of a file's identity. */
    public record Scope(long a, long b) {
        /** The id of the record that starts at {@code startOffset} in this file. */
        public String at(long startOffset) {
            byte[] out = new byte[LENGTH];
            writeAt(startOffset, out, 0);
            return new String(out, StandardCharsets.US_ASCII);
        }

        /** Writes the 32 hex digits of {@link #at} into {@code dst} at {@code pos} without allocating. */
        public void writeAt(long startOffset, byte[] dst, int pos) {
            writeHex(fmix64(a ^ (startOffset * 0xFF51AFD7ED558CCDL)), dst, pos);
            writeHex(fmix64(b + (startOffset * 0xC4CEB9FE1A85EC53L)), dst, pos + 16);
        }
    }

    static long hash64(byte[] bytes, int off, int len, long seed) {
        long h = seed ^ (len * 0x100000001B3L);
        for (int i = off; i < off + len; i++) {
            h ^= bytes[i] & 0xFF;
            h *= 0x100000001B3L;
            h = Long.rotateLeft(h, 31);
        }
        return fmix64(h);
    }

    /** MurmurHash3's 64-bit finalizer: a bijection with good avalanche. */
    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xFF51AFD7ED558CCDL;
        k ^= k >>> 33;
        k *= 0xC4CEB9FE1A85EC53L;
        k ^= k >>> 33;
        return k;
    }

    private static void writeHex(long v, byte[] dst, int pos) {
        for (int i = 14; i >= 0; i -= 2) {
            short pair = HEX_PAIRS[(int) (v & 0xFF)];
            dst[pos + i] = (byte) (pair >>> 8);
            dst[pos + i + 1] = (byte) pair;
            v >>>= 8;
        }
    }
}
