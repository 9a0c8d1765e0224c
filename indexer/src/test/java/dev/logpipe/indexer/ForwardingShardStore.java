package dev.logpipe.indexer;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link ShardStore} that forwards every call to another: tests override what they watch or disturb. */
public class ForwardingShardStore implements ShardStore {
    protected final ShardStore delegate;

    public ForwardingShardStore(ShardStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Written write(ShardId shard, List<IndexRecord> batch) throws IOException {
        return delegate.write(shard, batch);
    }

    @Override
    public Prepared prepare(Map<ShardId, List<IndexRecord>> batches) {
        return delegate.prepare(batches);
    }

    @Override
    public Map<ShardId, Written> writeAll(Map<ShardId, List<IndexRecord>> batches) throws WriteFailed {
        return delegate.writeAll(batches);
    }

    @Override
    public Map<ShardId, Written> writeAll(Prepared prepared) throws WriteFailed {
        return delegate.writeAll(prepared);
    }

    @Override
    public List<Rejection> writeDeadLetters(ShardId shard, List<DeadLetterEntry> batch) throws IOException {
        return delegate.writeDeadLetters(shard, batch);
    }

    @Override
    public int commit(Map<String, Long> offsets) throws IOException {
        return delegate.commit(offsets);
    }

    @Override
    public void rollback() {
        delegate.rollback();
    }

    @Override
    public int closeIdle(Duration idle) throws IOException {
        return delegate.closeIdle(idle);
    }

    @Override
    public Backlog backlog() {
        return delegate.backlog();
    }

    @Override
    public String location(ShardId shard) {
        return delegate.location(shard);
    }

    @Override
    public void refresh() throws IOException {
        delegate.refresh();
    }

    @Override
    public boolean delete(ShardId shard) throws IOException {
        return delegate.delete(shard);
    }

    @Override
    public boolean uncommitted(ShardId shard) {
        return delegate.uncommitted(shard);
    }

    @Override
    public List<ShardId> shards(ShardKind kind) throws IOException {
        return delegate.shards(kind);
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
        return delegate.metadata(shard);
    }

    @Override
    public Map<String, Long> committedOffsets(ShardId shard) throws IOException {
        return delegate.committedOffsets(shard);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
