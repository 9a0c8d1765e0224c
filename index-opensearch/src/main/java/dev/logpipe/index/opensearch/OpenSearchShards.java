package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The read side on an OpenSearch cluster, for any number of query services: a tenant's shards are its indices of the
 * store's names ({@link IndexNames}), and a searcher over one is {@link OpenSearchShardSearcher}. No metadata for
 * pruning yet, so the query service prunes nothing on this engine (every index of the range is searched); the field
 * names of an index come from its mapping ({@link #latestMetadata}). Thread-safe.
 */
public final class OpenSearchShards implements ShardSource {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final OpenSearchClient client;
    private final IndexNames names;

    private OpenSearchShards(OpenSearchClient client, IndexNames names) {
        this.client = client;
        this.names = names;
    }

    public static OpenSearchShards open(OpenSearchSettings settings) throws IOException {
        return new OpenSearchShards(new OpenSearchClient(settings), new IndexNames(settings.indexPrefix()));
    }

    @Override
    public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
        return OpenSearchStore.list(client, names, kind).stream()
                .filter(s -> s.tenant().equals(tenant))
                .toList();
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) {
        return Optional.empty(); // no complete labels and time range yet: nothing is pruned on this engine
    }

    /**
     * The structured field names of the shard's index and their kinds, read from its mapping (for listing fields, never
     * for pruning): a name's keyword is {@code KEYWORD} (a true/false value is indexed the same way), its {@code #long}
     * or {@code #double} companion adds {@code LONG} or {@code DOUBLE}. Empty when the index does not exist.
     */
    @Override
    public Optional<ShardMetadata> latestMetadata(ShardId shard) throws IOException {
        String index = names.of(shard);
        OpenSearchClient.Response r = client.send("GET", "/" + index + "/_mapping", null, null);
        if (r.status() == 404) {
            return Optional.empty();
        }
        OpenSearchStore.expect(r, "reading the mapping of " + index);
        JsonNode properties = JSON.readTree(r.body())
                .path(index)
                .path("mappings")
                .path("properties")
                .path("fields")
                .path("properties");
        SortedMap<String, SortedSet<FieldKind>> fields = new TreeMap<>();
        properties.fieldNames().forEachRemaining(escaped -> {
            for (FieldKind kind : new FieldKind[] {FieldKind.LONG, FieldKind.DOUBLE}) {
                if (escaped.endsWith(kind.suffix())) {
                    String name = OpenSearchDocuments.structuredName(escaped.substring(
                            0, escaped.length() - kind.suffix().length()));
                    if (name != null) {
                        fields.computeIfAbsent(name, k -> new TreeSet<>()).add(kind);
                    }
                    return;
                }
            }
            String name = OpenSearchDocuments.structuredName(escaped);
            if (name != null) {
                fields.computeIfAbsent(name, k -> new TreeSet<>()).add(FieldKind.KEYWORD);
            }
        });
        ShardMetadata empty = ShardMetadata.empty(shard);
        return Optional.of(new ShardMetadata(
                empty.kind(),
                empty.tenant(),
                empty.day(),
                0,
                null,
                null,
                empty.labels(),
                empty.truncatedLabels(),
                fields,
                false,
                ShardMetadata.FieldsNotIndexed.NONE,
                null,
                empty.offsets()));
    }

    @Override
    public Optional<ShardSearcher> open(ShardId shard) throws IOException {
        String index = names.of(shard);
        OpenSearchClient.Response r = client.send("HEAD", "/" + index, null, null);
        if (r.status() == 404) {
            return Optional.empty();
        }
        OpenSearchStore.expect(r, "looking up index " + index);
        return Optional.of(new OpenSearchShardSearcher(client, shard, index));
    }
}
