package dev.logpipe.index.store;

import java.util.Map;

/**
 * How the Lucene store uses memory and disk.
 *
 * @param ramBufferMb        indexing RAM shared by the open shards (each writer gets its share, at least 8 MB)
 * @param maxOpenShards      open shards kept beyond this are closed after a commit, least recently used first
 * @param trackedIdsPerShard record ids remembered per new shard so that an id never seen needs no delete (0: off)
 * @param compression        stored fields (the source): BEST_SPEED (LZ4) or BEST_COMPRESSION (DEFLATE)
 * @param fieldNames         how many distinct structured field names a shard indexes
 */
public record StoreSettings(
        int ramBufferMb, int maxOpenShards, int trackedIdsPerShard, Compression compression, FieldNames fieldNames) {
    public enum Compression {
        BEST_SPEED,
        BEST_COMPRESSION
    }

    /**
     * The cap on distinct {@code fields.*} names indexed per shard (tenant, UTC day): every distinct name costs the
     * index writer and every segment per-field structures, so the cap bounds memory however many names a tenant sends.
     * Past it a field stays in the stored record but is not indexed (docs/indexer.md#field-names).
     *
     * @param perShard the cap of a tenant without its own
     * @param tenants  tenant id to its own cap
     */
    public record FieldNames(int perShard, Map<String, Integer> tenants) {
        /** OpenSearch's {@code index.mapping.total_fields.limit}. */
        public static final int DEFAULT_PER_SHARD = 1000;

        public FieldNames {
            if (perShard < 0) {
                throw new IllegalArgumentException("perShard: must be >= 0, was " + perShard);
            }
            tenants = Map.copyOf(tenants);
            tenants.forEach((t, n) -> {
                if (n < 0) {
                    throw new IllegalArgumentException("tenants." + t + ": must be >= 0, was " + n);
                }
            });
        }

        public static FieldNames defaults() {
            return new FieldNames(DEFAULT_PER_SHARD, Map.of());
        }

        public int limit(String tenant) {
            return tenants.getOrDefault(tenant, perShard);
        }
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
        if (fieldNames == null) {
            throw new IllegalArgumentException("fieldNames: is required");
        }
    }

    /** Settings with the default cap on field names. */
    public StoreSettings(int ramBufferMb, int maxOpenShards, int trackedIdsPerShard, Compression compression) {
        this(ramBufferMb, maxOpenShards, trackedIdsPerShard, compression, FieldNames.defaults());
    }

    public static StoreSettings defaults() {
        return new StoreSettings(128, 64, 1 << 20, Compression.BEST_SPEED);
    }
}
