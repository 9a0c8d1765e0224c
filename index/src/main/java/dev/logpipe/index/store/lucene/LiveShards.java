package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.KeptReads;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The read side of the indexer's own {@link LuceneStore}, for a query service in the same JVM: searchers see every
 * refreshed write (near-real-time), not only committed ones.
 */
public final class LiveShards implements ShardSource {
    private final LuceneStore store;
    private final MetadataFiles metadataFiles = new MetadataFiles();
    private final CompiledQueries queries = new CompiledQueries();
    /** What queries keep between requests: a segment outlives many refreshes, so a kept count stays useful. */
    private final ReadCaches caches = ReadCaches.forQueries();

    public LiveShards(LuceneStore store) {
        this.store = store;
    }

    /** What this side keeps between requests, for its gauges. */
    public KeptReads keptReads() {
        return caches;
    }

    /** Queries compiled to Lucene so far: a query searched again, on any shard, is compiled once. */
    public long compiles() {
        return queries.compiles();
    }

    @Override
    public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
        return store.layout().list(kind, tenant);
    }

    /**
     * Empty for a shard written since its last commit: its {@code shard.json} may lack what a refreshed searcher
     * already shows (new labels, newer times), so a planner must not prune on it.
     */
    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
        if (store.dirtyShards().contains(shard)) {
            return Optional.empty();
        }
        return metadataFiles.read(store.layout().metadataFile(shard));
    }

    @Override
    public Optional<ShardMetadata> latestMetadata(ShardId shard) throws IOException {
        return metadataFiles.read(store.layout().metadataFile(shard));
    }

    @Override
    public Optional<ShardSearcher> open(ShardId shard) throws IOException {
        return store.acquire(shard, queries, caches);
    }
}
