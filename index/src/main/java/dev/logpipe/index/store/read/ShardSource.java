package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import java.io.IOException;
import java.util.ArrayList;
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
     * True when this engine answers one call on several shards in one round trip ({@link #callAll}) sooner than on
     * each shard alone (a remote engine: one request instead of one per shard); the query service then asks a wave's
     * shards together instead of one shard per thread. False (the default) for an engine in this process.
     */
    default boolean callsTogether() {
        return false;
    }

    /**
     * The call's answer from each of {@code searchers} (opened by this source), in their order: each shard's value, or
     * what its searcher would have thrown. The default asks them one after the other; an engine that {@link
     * #callsTogether} asks them in one round trip. Throws only when no shard could be asked at all (the engine could not
     * be reached).
     */
    default <T> List<ShardCall.Answer<T>> callAll(List<ShardSearcher> searchers, ShardCall<T> call, long deadlineNanos)
            throws IOException {
        List<ShardCall.Answer<T>> out = new ArrayList<>(searchers.size());
        for (ShardSearcher s : searchers) {
            try {
                out.add(ShardCall.Answer.of(call.on(s, deadlineNanos)));
            } catch (IOException | RuntimeException e) {
                out.add(ShardCall.Answer.failed(e));
            }
        }
        return out;
    }

    /**
     * The stored sources of documents of several searchers (opened by this source) read in one round trip on an
     * engine that {@link #callsTogether}: {@code out[i][j]} is the source of {@code docs.get(i)[j]} in
     * {@code searchers.get(i)}, null when {@code budget} refused it (asked with the document's place in all the
     * documents in order, first searcher's first). The default reads each searcher's in turn with {@link
     * ShardSearcher#sources(int[], ShardSearcher.SourceBudget)}.
     */
    default String[][] sourcesAll(List<ShardSearcher> searchers, List<int[]> docs, ShardSearcher.SourceBudget budget)
            throws IOException {
        String[][] out = new String[searchers.size()][];
        int base = 0;
        for (int i = 0; i < searchers.size(); i++) {
            int offset = base;
            out[i] = searchers.get(i).sources(docs.get(i), (j, bytes) -> budget.take(offset + j, bytes));
            base += docs.get(i).length;
        }
        return out;
    }

    /**
     * Bytes a search of {@code q} on the shard would fetch from an archive and decompress now, at most (0 when it
     * reads none: a hot shard, or archive blocks a cache holds already): what the planner's archive budget counts
     * before anything is dispatched.
     */
    default long archiveBytes(ShardId shard, ShardQuery q) throws IOException {
        return 0;
    }
}
