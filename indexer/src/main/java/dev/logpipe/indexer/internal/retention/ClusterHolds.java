package dev.logpipe.indexer.internal.retention;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.opensearch.ClusterDocuments;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The legal holds of every indexer on one OpenSearch cluster, one document each in {@code <prefix>-legal-holds}
 * ({@link ClusterDocuments}): a hold placed through any indexer is seen by all of them at their next decision, since
 * each reads the cluster's holds every time it asks (nothing cached). A document that does not parse is an error
 * naming the index, never a hold silently ignored. Thread-safe.
 */
final class ClusterHolds implements HoldsStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ClusterDocuments documents;

    ClusterHolds(ClusterDocuments documents) {
        this.documents = documents;
    }

    @Override
    public List<LegalHold> all() throws IOException {
        List<LegalHold> out = new ArrayList<>();
        for (JsonNode d : documents.all()) {
            try {
                out.add(LegalHold.fromJson(d));
            } catch (RuntimeException e) {
                throw new IOException("a legal hold in " + documents.index() + " is corrupt: " + d, e);
            }
        }
        return out;
    }

    @Override
    public void add(LegalHold hold) throws IOException {
        ObjectNode doc = JSON.createObjectNode();
        hold.toJson(doc);
        documents.put(hold.id(), doc);
    }

    @Override
    public Optional<LegalHold> remove(String id) throws IOException {
        Optional<LegalHold> hold = all().stream().filter(h -> h.id().equals(id)).findFirst();
        if (hold.isPresent() && !documents.delete(id)) {
            return Optional.empty(); // another indexer removed it meanwhile
        }
        return hold;
    }
}
