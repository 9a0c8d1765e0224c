package dev.logpipe.indexer.internal.retention;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where the legal holds are kept: one indexer's file ({@link FileHolds}, the Lucene store) or the cluster every
 * indexer shares ({@link ClusterHolds}, the OpenSearch store). Whatever it answers is what every indexer sharing it
 * decides by; when it cannot answer, nothing is deleted (the caller's retention run fails and is tried again).
 */
interface HoldsStore {
    List<LegalHold> all() throws IOException;

    void add(LegalHold hold) throws IOException;

    /** Removes the hold {@code id}; empty when there is none. */
    Optional<LegalHold> remove(String id) throws IOException;
}
