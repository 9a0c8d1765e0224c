package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The read side of the store, all the query service needs: which shards a tenant has, their metadata (read without
 * opening them, for pruning) and a point-in-time searcher over one shard. The Lucene engine has two:
 * {@code store.lucene.LiveShards} (the indexer's own store in the same JVM, near-real-time) and
 * {@code store.lucene.CommittedShards} (a separate process reading committed shards without a write lock).
 * Thread-safe.
 */
public interface ShardSource {
    /** The shards of one tenant and kind on disk, sorted by day. */
    List<ShardId> shards(ShardKind kind, String tenant) throws IOException;

    /**
     * The shard's metadata, a superset of what {@link #open} shows (safe to prune on); empty when the shard has none
     * yet, or when it may not cover what a searcher shows: then a planner prunes nothing on it.
     */
    Optional<ShardMetadata> metadata(ShardId shard) throws IOException;

    /**
     * The shard's metadata as last written, even when it may lag what a searcher shows: for listing field names, never
     * for pruning.
     */
    default Optional<ShardMetadata> latestMetadata(ShardId shard) throws IOException {
        return metadata(shard);
    }

    /**
     * A searcher over the shard as of its last refresh (live) or commit (committed); empty when the shard does not
     * exist or holds no commit yet. The caller closes it.
     */
    Optional<ShardSearcher> open(ShardId shard) throws IOException;

    /**
     * Bytes a search of {@code q} on the shard would fetch from an archive and decompress now, at most (0 when it
     * reads none: a hot shard, or archive blocks a cache holds already): what the planner's archive budget counts
     * before anything is dispatched.
     */
    default long archiveBytes(ShardId shard, ShardQuery q) throws IOException {
        return 0;
    }
}
