package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.SearchPage;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/** A point-in-time view over some shards; close it to release them. Thread-safe. */
public interface StoreSearcher extends Closeable {
    /**
     * The newest-first page of matching documents (order: event_time desc, record_id asc).
     *
     * @throws IllegalArgumentException the query does not parse; the message says where
     */
    SearchPage search(SearchRequest request) throws IOException;

    /** How many documents match. */
    long count(SearchRequest request) throws IOException;

    /** The shards this searcher covers (those that existed when it was opened). */
    List<ShardId> shards();

    @Override
    void close() throws IOException;
}
