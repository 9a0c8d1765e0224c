package dev.logpipe.index.store;

/**
 * How the Lucene store uses memory and disk.
 *
 * @param ramBufferMb        indexing RAM shared by the open shards (each writer gets its share, at least 8 MB)
 * @param maxOpenShards      open shards kept beyond this are closed after a commit, least recently used first
 * @param trackedIdsPerShard record ids remembered per new shard so that an id never seen needs no delete (0: off)
 * @param compression        stored fields (the source): BEST_SPEED (LZ4) or BEST_COMPRESSION (DEFLATE)
 */
public record StoreSettings(int ramBufferMb, int maxOpenShards, int trackedIdsPerShard, Compression compression) {
    public enum Compression {
        BEST_SPEED,
        BEST_COMPRESSION
    }

    public StoreSettings {
        if (ramBufferMb < 8) {
            throw new IllegalArgumentException("ramBufferMb: must be >= 8, was " + ramBufferMb);
        }
        if (maxOpenShards < 1) {
            throw new IllegalArgumentException("maxOpenShards: must be >= 1, was " + maxOpenShards);
        }
        if (trackedIdsPerShard < 0) {
            throw new IllegalArgumentException("trackedIdsPerShard: must be >= 0, was " + trackedIdsPerShard);
        }
    }

    public static StoreSettings defaults() {
        return new StoreSettings(128, 64, 1 << 20, Compression.BEST_SPEED);
    }
}
