package dev.logpipe.index.opensearch;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The read side on an OpenSearch cluster, for any number of query services: a tenant's shards are its indices of the
 * store's names ({@link IndexNames}), and a searcher over one is {@link OpenSearchShardSearcher}. No metadata yet, so the
 * query service prunes nothing on this engine (every index of the range is searched). Thread-safe.
 */
public final class OpenSearchShards implements ShardSource {
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
        return Optional.empty();
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
