package dev.logpipe.query.internal.saved;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.opensearch.ClusterDocuments;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Saved searches of every query process on one OpenSearch cluster, one document each in {@code
 * <prefix>-saved-searches} ({@link ClusterDocuments}), its id {@code <tenant>.<id>} and its {@code tenant} field the
 * owner: a search saved through one query process opens through any other (the link is shareable behind a load
 * balancer). The index is reached on first use, so a query process starts while the cluster is away. A document that
 * does not parse is an error naming the index. Each call reads only the tenant's documents (its {@code tenant} is
 * indexed as a keyword). Thread-safe.
 */
final class ClusterSavedSearches implements SavedSearchStore {
    static final String NAME = "saved-searches";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ClusterDocuments.Lazy documents;

    ClusterSavedSearches(OpenSearchSettings settings) {
        this.documents = new ClusterDocuments.Lazy(settings, NAME, "tenant");
    }

    @Override
    public List<SavedSearch> list(String tenant) throws IOException {
        ClusterDocuments d = documents();
        List<SavedSearch> out = new ArrayList<>();
        // a tenant's own documents only: never another tenant's, and no cap shared with them
        for (JsonNode n : d.where("tenant", tenant, SavedSearches.MAX_PER_TENANT * 2)) {
            if (tenant.equals(n.path("tenant").asText(null))) {
                out.add(parse(d, n));
            }
        }
        return out;
    }

    @Override
    public Optional<SavedSearch> get(String tenant, String id) throws IOException {
        return list(tenant).stream().filter(s -> s.id().equals(id)).findFirst();
    }

    @Override
    public void put(String tenant, SavedSearch search) throws IOException {
        ObjectNode doc = search.toJson(JSON.createObjectNode());
        doc.put("tenant", tenant);
        documents().put(tenant + "." + search.id(), doc);
    }

    @Override
    public boolean delete(String tenant, String id) throws IOException {
        return documents().delete(tenant + "." + id);
    }

    private static SavedSearch parse(ClusterDocuments d, JsonNode n) throws IOException {
        try {
            return SavedSearch.fromJson(n);
        } catch (IllegalArgumentException e) {
            throw new IOException("a saved search in " + d.index() + " is corrupt (" + e.getMessage() + "): " + n, e);
        }
    }

    private ClusterDocuments documents() throws IOException {
        return documents.get();
    }
}
