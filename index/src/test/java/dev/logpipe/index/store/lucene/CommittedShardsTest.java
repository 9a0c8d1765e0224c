package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A read-only view of a data directory the store keeps writing: committed data only, new commits after a reopen. */
class CommittedShardsTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:00Z");

    @TempDir
    Path data;

    static IndexRecord record(String id, Instant t) throws Exception {
        byte[] line = CODEC.encode(LogRecord.builder("hello " + id)
                .recordId(id)
                .tenantId("acme")
                .eventTime(t)
                .observedTime(t)
                .build());
        return new IndexRecord(CODEC.decode(line), t, t, line, 0, line.length);
    }

    static long count(CommittedShards shards, ShardId id) throws Exception {
        Optional<ShardSearcher> s = shards.open(id);
        if (s.isEmpty()) {
            return -1;
        }
        try (ShardSearcher searcher = s.get()) {
            return searcher.count(
                    ShardQuery.of("acme", ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE), Long.MAX_VALUE);
        }
    }

    @Test
    void readsCommitsWithoutALockWhileTheWriterWritesAndSeesNewCommitsAfterAReopen() throws Exception {
        ShardLayout layout = new ShardLayout(data);
        ShardId day1 = ShardId.records("acme", LocalDate.parse("2026-12-01"));
        ShardId day2 = ShardId.records("acme", LocalDate.parse("2026-12-02"));
        try (LuceneStore store = new LuceneStore(layout, StoreSettings.defaults(), InstantSource.fixed(T));
                CommittedShards shards = new CommittedShards(layout, Duration.ofHours(1))) {
            assertThat(count(shards, day1)).isEqualTo(-1); // no shard yet
            store.write(day1, List.of(record("a", T), record("b", T)));
            store.refresh();
            assertThat(count(shards, day1)).isEqualTo(-1); // written and refreshed, but not committed
            store.commit(Map.of("t-0", 2L));
            assertThat(count(shards, day1)).isEqualTo(2);
            store.write(day1, List.of(record("c", T)));
            store.commit(Map.of("t-0", 3L));
            assertThat(count(shards, day1)).isEqualTo(2); // the open view is a point in time...
            shards.reopenOnce();
            assertThat(count(shards, day1)).isEqualTo(3); // ...until the next reopen
            store.write(day2, List.of(record("d", T.plus(Duration.ofDays(1)))));
            store.commit(Map.of("t-0", 4L));
            assertThat(shards.shards(ShardKind.RECORDS, "acme")).containsExactly(day1, day2);
            assertThat(count(shards, day2)).isEqualTo(1); // a new shard is found when asked for
            assertThat(shards.metadata(day2).orElseThrow().docs()).isEqualTo(1);
            store.write(day1, List.of(record("e", T))); // the writer still owns the lock
            store.commit(Map.of("t-0", 5L));
            store.delete(day2);
            shards.reopenOnce();
            assertThat(shards.openShards()).isEqualTo(1);
            assertThat(count(shards, day1)).isEqualTo(4);
        }
    }
}
