package dev.logpipe.indexer.stage;

/**
 * One partition's stage offsets (next offsets) and the age in seconds of the newest record at each stage (null when
 * unknown: nothing reached the stage since start, or, for DURABLE, records were appended that are not read yet).
 */
public record PartitionStages(
        String partition,
        long durable,
        long read,
        long indexed,
        long queryable,
        long committed,
        Double durableAge,
        Double readAge,
        Double indexedAge,
        Double queryableAge,
        Double committedAge) {
    /** QUERYABLE <= INDEXED <= READ <= DURABLE and COMMITTED <= INDEXED. */
    public boolean ordered() {
        return queryable <= indexed && indexed <= read && read <= durable && committed <= indexed;
    }
}
