package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.opensearch.ClusterDocuments;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.shard.TenantDirectory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Stored rule groups of every query process on one OpenSearch cluster, one document each in {@code
 * <prefix>-rule-groups} ({@link ClusterDocuments}; id: tenant and group name in {@link TenantDirectory}'s encoding,
 * joined by a dot neither can hold). Reached on first use. A document that does not parse is an error naming the
 * index. Thread-safe.
 */
final class ClusterRuleStore implements RuleStore {
    static final String NAME = "rule-groups";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ClusterDocuments.Lazy documents;

    ClusterRuleStore(OpenSearchSettings settings) {
        this.documents = new ClusterDocuments.Lazy(settings, NAME);
    }

    @Override
    public List<StoredGroup> all() throws IOException {
        ClusterDocuments d = documents();
        List<StoredGroup> out = new ArrayList<>();
        for (JsonNode n : d.all()) {
            JsonNode tenant = n.get("tenant");
            JsonNode name = n.get("name");
            JsonNode yaml = n.get("yaml");
            if (tenant == null || name == null || yaml == null || !yaml.isTextual()) {
                throw new IOException("a rule group in " + d.index() + " is corrupt: " + n);
            }
            out.add(new StoredGroup(tenant.asText(), name.asText(), yaml.asText()));
        }
        return out;
    }

    @Override
    public void put(StoredGroup group) throws IOException {
        ObjectNode doc = JSON.createObjectNode()
                .put("tenant", group.tenant())
                .put("name", group.name())
                .put("yaml", group.yaml());
        documents().put(id(group.tenant(), group.name()), doc);
    }

    @Override
    public boolean delete(String tenant, String name) throws IOException {
        return documents().delete(id(tenant, name));
    }

    private static String id(String tenant, String name) {
        return TenantDirectory.encode(tenant) + "." + TenantDirectory.encode(name);
    }

    private ClusterDocuments documents() throws IOException {
        return documents.get();
    }
}
