package dev.logpipe.query;

import java.util.Optional;

/**
 * How far the indexer is, when the query service runs beside it (the standalone feeds it from the indexer's stage
 * offsets); a separate query process has none and reports freshness from the shards alone.
 */
public interface IndexerProgress {
    IndexerProgress NONE = Optional::empty;

    /** The indexer's view now, or empty when unknown. */
    Optional<Snapshot> snapshot();

    /**
     * @param recordsBehind          records durable in Kafka but not yet visible to search (all tenants)
     * @param queryableAgeSeconds    age of the newest record visible to search, from its Kafka timestamp, or null
     */
    record Snapshot(long recordsBehind, Double queryableAgeSeconds) {}
}
