package dev.logpipe.query.internal.saved;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where saved searches are kept, per tenant: files under the query service's data directory ({@link
 * FileSavedSearches}, {@code store: lucene}) or documents in the cluster every query process shares ({@link
 * ClusterSavedSearches}, {@code store: opensearch}). A tenant's calls only ever see that tenant's searches.
 */
interface SavedSearchStore {
    /** The tenant's saved searches, in no particular order. */
    List<SavedSearch> list(String tenant) throws IOException;

    Optional<SavedSearch> get(String tenant, String id) throws IOException;

    /** Writes {@code search} (replacing the tenant's search of its id); once it returns, {@link #list} has it. */
    void put(String tenant, SavedSearch search) throws IOException;

    /** Deletes the tenant's search {@code id}; false when there was none. */
    boolean delete(String tenant, String id) throws IOException;
}
