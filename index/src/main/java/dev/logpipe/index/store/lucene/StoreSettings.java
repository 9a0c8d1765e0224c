package dev.logpipe.index.store.lucene;

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
     * The caps on distinct {@code fields.*} names indexed: every distinct name costs the index writer and every segment
     * per-field structures. {@code perShard} bounds one shard (tenant, UTC day); {@code bytesPerTenant} bounds the
     * names of all of a tenant's open shards together, so a tenant writing to every day of its retention at once
     * cannot multiply the first. Past either a field stays in the stored record but is not indexed
     * (docs/indexer.md#field-names).
     *
     * @param perShard       the cap of a tenant without its own
     * @param tenants        tenant id to its own cap
     * @param bytesPerTenant what the names a tenant's open shards index may cost together: each its UTF-8 bytes plus
     *                       1 KiB
     */
    public record FieldNames(int perShard, Map<String, Integer> tenants, long bytesPerTenant) {
        /** OpenSearch's {@code index.mapping.total_fields.limit}. */
        public static final int DEFAULT_PER_SHARD = 1000;
        /**
         * 8 MiB: a name costs its UTF-8 bytes plus 1 KiB, so ~8,000 names of ordinary length across a tenant's open
         * shards (e.g. 30 backfilled days of 250 names), and the live heap they cost stays in tens of MB.
         */
        public static final long DEFAULT_BYTES_PER_TENANT = 8L << 20;

        public FieldNames {
            if (perShard < 0) {
                throw new IllegalArgumentException("perShard: must be >= 0, was " + perShard);
            }
            if (bytesPerTenant < 0) {
                throw new IllegalArgumentException("bytesPerTenant: must be >= 0, was " + bytesPerTenant);
            }
            tenants = Map.copyOf(tenants);
            tenants.forEach((t, n) -> {
                if (n < 0) {
                    throw new IllegalArgumentException("tenants." + t + ": must be >= 0, was " + n);
                }
            });
        }

        /** The given caps per shard, and the default budget per tenant. */
        public FieldNames(int perShard, Map<String, Integer> tenants) {
            this(perShard, tenants, DEFAULT_BYTES_PER_TENANT);
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
