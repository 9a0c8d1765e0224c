package dev.logpipe.index.store.lucene;

/**
 * The 64-bit hashes of the record ids written to a shard that was empty when opened, in an open-addressing table
 * of primitive longs. "Absent" is exact (every written id is in it), "present" may be a hash collision, which only
 * costs an unneeded delete. Full at {@code capacity} ids: then {@link #add} answers that the caller must delete.
 * Single-threaded.
 */
final class IdSet {
    private final int capacity;
    private long[] table = new long[1024];
    private int size;
    private boolean zero;

    IdSet(int capacity) {
        this.capacity = capacity;
    }

    /** Records {@code hash}; true when it was surely not there before (so no document with that id can exist). */
    boolean add(long hash) {
        if (size >= capacity) {
            return false;
        }
        if (hash == 0) {
            boolean fresh = !zero;
            zero = true;
            return fresh;
        }
        if (size * 2 >= table.length) {
            grow();
        }
        int mask = table.length - 1;
        int i = (int) mix(hash) & mask;
        while (table[i] != 0) {
            if (table[i] == hash) {
                return false;
            }
            i = (i + 1) & mask;
        }
        table[i] = hash;
        size++;
        return true;
    }

    boolean full() {
        return size >= capacity;
    }

    private void grow() {
        long[] old = table;
        table = new long[old.length * 2];
        int mask = table.length - 1;
        for (long h : old) {
            if (h != 0) {
                int i = (int) mix(h) & mask;
                while (table[i] != 0) {
                    i = (i + 1) & mask;
                }
                table[i] = h;
            }
        }
    }

    private static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        return h ^ (h >>> 33);
    }

    /** A 64-bit FNV-1a hash of an id's characters. */
    static long hash(String id) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < id.length(); i++) {
            h ^= id.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
