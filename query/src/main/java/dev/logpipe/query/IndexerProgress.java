package dev.logpipe.query;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
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
     * The pipeline's freshness, in time only: it is shared by every tenant, so no count of records (which would be
     * other tenants' too) is part of it.
     *
     * @param lagSeconds      how stale search is now: the age of the newest searchable record while records that are
     *                        durable wait to become searchable, 0 when none wait, null when unknown
     * @param stageAgeSeconds the age of the newest record at each stage ({@code durable}, {@code read}, {@code
     *                        indexed}, {@code queryable}, in that order), a stage left out when unknown
     */
    record Snapshot(Double lagSeconds, Map<String, Double> stageAgeSeconds) {
        public Snapshot {
            stageAgeSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(stageAgeSeconds));
        }
    }
}
