package dev.logpipe.index.store.lucene;

import dev.logpipe.index.store.read.SearchPage;
import java.time.Instant;
import java.util.Objects;

/**
 * A query in Lucene classic syntax (default field {@code message}; {@code fields.x:>5} ranges work on numbers),
 * restricted to one tenant and to event times in [{@code from}, {@code to}); {@code after} continues a page.
 */
public record SearchRequest(String tenant, String query, Instant from, Instant to, int limit, SearchPage.After after) {
    public SearchRequest {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(query, "query");
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit: must be between 1 and 10000, was " + limit);
        }
    }

    public static SearchRequest of(String tenant, String query, int limit) {
        return new SearchRequest(tenant, query, null, null, limit, null);
    }
}
