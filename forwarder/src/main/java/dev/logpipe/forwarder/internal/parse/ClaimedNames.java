package dev.logpipe.forwarder.internal.parse;

import java.util.Arrays;

/**
 * The flattened names written as fields so far in one line, so {@link JsonFastPath} writes a repeated name only
 * once (the first wins, as on the slow path). A slot per name hash remembers the line that last used it, so most
 * names are known new without a comparison. Not thread-safe.
 */
final class ClaimedNames {
    private static final int SLOTS = 256;

    /** A slot of a name hash holds the number of the line that used it last. */
    private final int[] slots = new int[SLOTS];

    private int line;
    private byte[] names = new byte[1024];
    private int namesLen;
    private int[] hashes = new int[64];
    private int[] starts = new int[64];
    private int[] lengths = new int[64];
    private int count;

    /** Starts a new line: nothing is claimed. */
    void clear() {
        line++;
        namesLen = 0;
        count = 0;
    }

    /** Whether {@code n[off, off + len)}, of folded hash {@code h}, was claimed in this line. */
    boolean contains(int h, byte[] n, int off, int len) {
        if (slots[h & (SLOTS - 1)] != line) {
            return false;
        }
        for (int k = 0; k < count; k++) {
            if (hashes[k] == h
                    && lengths[k] == len
                    && Arrays.equals(names, starts[k], starts[k] + len, n, off, off + len)) {
                return true;
            }
        }
        return false;
    }

    /** Claims {@code n[off, off + len)}, of folded hash {@code h}, for this line. */
    void add(int h, byte[] n, int off, int len) {
        slots[h & (SLOTS - 1)] = line;
        if (count == hashes.length) {
            hashes = Arrays.copyOf(hashes, count * 2);
            starts = Arrays.copyOf(starts, count * 2);
            lengths = Arrays.copyOf(lengths, count * 2);
        }
        if (namesLen + len > names.length) {
            names = Arrays.copyOf(names, Math.max(names.length * 2, namesLen + len));
        }
        System.arraycopy(n, off, names, namesLen, len);
        hashes[count] = h;
        starts[count] = namesLen;
        lengths[count] = len;
        count++;
        namesLen += len;
    }
}
