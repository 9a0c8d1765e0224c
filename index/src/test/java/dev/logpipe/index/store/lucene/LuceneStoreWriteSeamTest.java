package dev.logpipe.index.store.lucene;

import static dev.logpipe.index.store.lucene.LuceneStoreTest.DAY;
import static dev.logpipe.index.store.lucene.LuceneStoreTest.T;
import static dev.logpipe.index.store.lucene.LuceneStoreTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.write.ShardStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the indexer's loop asks of {@link ShardStore} beyond writes, as the Lucene store answers it. */
class LuceneStoreWriteSeamTest {
    @TempDir
    Path data;

    private LuceneStore store() {
        return new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T));
    }

    @Test
    void commitCountsTheShardsWrittenSinceTheLastCommit() throws Exception {
        try (LuceneStore store = store()) {
            store.write(ShardId.records("acme", DAY), List.of(record("acme", "a", "one", Map.of())));
            store.write(ShardId.records("zeta", DAY), List.of(record("zeta", "z", "two", Map.of())));
            assertThat(store.commit(Map.of("t-0", 2L))).isEqualTo(2);
            store.write(ShardId.records("acme", DAY), List.of(record("acme", "b", "three", Map.of())));
            assertThat(store.commit(Map.of("t-0", 3L))).isEqualTo(1);
            assertThat(store.commit(Map.of("t-0", 3L))).isZero();
        }
    }

    @Test
    void rollbackDropsTheWritesSinceTheLastCommit() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(shard, List.of(record("acme", "a", "kept", Map.of())));
            store.commit(Map.of("t-0", 1L));
            store.write(shard, List.of(record("acme", "b", "dropped", Map.of())));
            store.rollback();
            assertThat(store.openShards()).isZero();
            assertThat(store.commit(Map.of("t-0", 2L))).isZero(); // nothing left to make durable
            assertThat(store.committedOffsets(shard)).isEqualTo(Map.of("t-0", 1L));
        }
    }

    @Test
    void theBacklogIsTheIndexingRamAgainstTheSharedBuffer() throws Exception {
        try (LuceneStore store = store()) {
            assertThat(store.backlog())
                    .isEqualTo(new ShardStore.Backlog(
                            0, (long) StoreSettings.defaults().ramBufferMb() << 20));
            store.write(ShardId.records("acme", DAY), List.of(record("acme", "a", "one", Map.of())));
            assertThat(store.backlog().bytes()).isPositive().isEqualTo(store.ramBytesUsed());
        }
    }

    @Test
    void closeIdleClosesOnlyCommittedShardsAndALocationIsTheShardsDirectory() throws Exception {
        ShardId committed = ShardId.records("acme", DAY);
        ShardId dirty = ShardId.records("zeta", DAY);
        try (LuceneStore store = store()) {
            store.write(committed, List.of(record("acme", "a", "one", Map.of())));
            store.commit(Map.of("t-0", 1L));
            store.write(dirty, List.of(record("zeta", "z", "two", Map.of())));
            assertThat(store.closeIdle(Duration.ZERO)).isEqualTo(1);
            assertThat(store.dirtyShards()).containsExactly(dirty);
            assertThat(store.location(dirty))
                    .isEqualTo(new ShardLayout(data).shardDir(dirty).toString());
        }
    }
}
