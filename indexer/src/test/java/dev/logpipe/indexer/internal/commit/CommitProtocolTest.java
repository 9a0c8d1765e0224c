package dev.logpipe.indexer.internal.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.ForwardingShardStore;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommitProtocolTest {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final Instant T = Instant.parse("2026-12-01T08:00:00Z");
    static final ShardId SHARD = ShardId.records("acme", LocalDate.ofInstant(T, ZoneOffset.UTC));
    static final RecordCodec CODEC = new RecordCodec();

    @TempDir
    Path data;

    /** What happened, in order: dead-letter waits, engine commits that returned, Kafka commits, callbacks. */
    final List<String> log = new CopyOnWriteArrayList<>();

    final List<CommitProtocol> protocols = new ArrayList<>();

    @AfterEach
    void closeProtocols() {
        protocols.forEach(CommitProtocol::close);
    }

    /** A store whose commits are logged once they return, and can be held on a latch or fail once. */
    final class WatchedStore extends ForwardingShardStore {
        final CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile IOException failNext;

        WatchedStore(ShardStore delegate) {
            super(delegate);
        }

        @Override
        public int commit(Map<String, Long> offsets) throws IOException {
            entered.countDown();
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            IOException fail = failNext;
            if (fail != null) {
                failNext = null;
                throw fail;
            }
            int shards = super.commit(offsets);
            log.add("engine " + offsets);
            return shards;
        }
    }

    /** Stands in for kill -9 between the engine commit and the Kafka commit: nothing after it runs. */
    static final class Crash extends Error {}

    private LuceneStore lucene() {
        return new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T));
    }

    private CommitProtocol protocol(ShardStore store, CommitProtocol.OffsetCommit kafka) {
        CommitProtocol p = new CommitProtocol(
                store, () -> log.add("dead letters"), kafka, done -> log.add("committed " + done.shards()));
        protocols.add(p);
        return p;
    }

    private CommitProtocol.OffsetCommit loggedKafka() {
        return offsets -> log.add("kafka " + plain(offsets));
    }

    private static Map<TopicPartition, Long> plain(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    private static IndexRecord record(long offset) throws Exception {
        byte[] line = CODEC.encode(LogRecord.builder("record " + offset)
                .recordId("id-" + offset)
                .tenantId("acme")
                .eventTime(T)
                .observedTime(T)
                .build());
        return new IndexRecord(CODEC.decode(line), T, T, line, 0, line.length);
    }

    /** Writes the records at offsets {@code from} until {@code to} (exclusive) of partition {@link #TP}. */
    private static void write(ShardStore store, long from, long to) throws Exception {
        List<IndexRecord> batch = new ArrayList<>();
        for (long o = from; o < to; o++) {
            batch.add(record(o));
        }
        assertThat(store.write(SHARD, batch).rejections()).isEmpty();
    }

    @Test
    void kafkaIsCommittedOnlyOnceTheEngineCommitReturned() throws Exception {
        try (LuceneStore lucene = lucene()) {
            WatchedStore store = new WatchedStore(lucene);
            store.hold = new CountDownLatch(1);
            CommitProtocol commits = protocol(store, loggedKafka());
            write(store, 0, 5);

            assertThat(commits.start(Map.of(TP, 5L))).isTrue();
            assertThat(store.entered.await(30, TimeUnit.SECONDS)).isTrue();
            commits.finish(false); // the engine commit is still running: nothing reaches Kafka
            assertThat(commits.inFlight()).isTrue();
            assertThat(log).containsExactly("dead letters");

            store.hold.countDown();
            commits.finish(true);
            assertThat(commits.inFlight()).isFalse();
            assertThat(log).containsExactly("dead letters", "engine {t-0=5}", "kafka {t-0=5}", "committed 1");
        }
    }

    @Test
    void aFailedEngineCommitNeverReachesKafka() throws Exception {
        try (LuceneStore lucene = lucene()) {
            WatchedStore store = new WatchedStore(lucene);
            store.failNext = new IOException("No space left on device");
            CommitProtocol commits = protocol(store, loggedKafka());
            write(store, 0, 5);

            commits.start(Map.of(TP, 5L, new TopicPartition("t", 1), 7L));
            assertThatThrownBy(() -> commits.finish(true))
                    .isInstanceOfSatisfying(StoreFailure.class, f -> {
                        assertThat(f.partitions()).containsExactlyInAnyOrder(TP, new TopicPartition("t", 1));
                        assertThat(f.shard()).isEqualTo("(commit)");
                    })
                    .hasMessageContaining("No space left on device");
            assertThat(log).containsExactly("dead letters");
            assertThat(commits.inFlight()).isFalse();

            log.clear();
            commits.start(Map.of(TP, 5L));
            commits.finish(true);
            assertThat(log).containsExactly("dead letters", "engine {t-0=5}", "kafka {t-0=5}", "committed 1");
        }
    }

    @Test
    void oneCommitIsInFlightAtATime() throws Exception {
        try (LuceneStore lucene = lucene()) {
            WatchedStore store = new WatchedStore(lucene);
            store.hold = new CountDownLatch(1);
            CommitProtocol commits = protocol(store, loggedKafka());
            write(store, 0, 5);
            commits.start(Map.of(TP, 5L));

            assertThatThrownBy(() -> commits.start(Map.of(TP, 9L)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("in flight");
            store.hold.countDown();
            commits.finish(true);
            assertThat(log).containsExactly("dead letters", "engine {t-0=5}", "kafka {t-0=5}", "committed 1");
            assertThat(commits.start(Map.of()))
                    .as("nothing written: nothing to commit")
                    .isFalse();
        }
    }

    /**
     * The engine committed offsets 0..99, and the process died before Kafka heard of it: a restart reads again from
     * Kafka's committed offset (still 0), the replayed records overwrite their documents, and every record is in the
     * index exactly once. At every Kafka commit, Kafka is at or behind what the engine made durable.
     */
    @Test
    void aCrashBetweenTheEngineCommitAndTheKafkaCommitIsReplayedNeverSkipped() throws Exception {
        Map<TopicPartition, Long> kafka = new HashMap<>(); // the consumer group's committed offsets
        boolean[] crash = {true};
        try (LuceneStore store = lucene()) {
            CommitProtocol commits = protocol(store, offsets -> {
                assertKafkaNotAheadOfTheEngine(store, offsets);
                if (crash[0]) {
                    throw new Crash();
                }
                kafka.putAll(plain(offsets));
            });
            write(store, 0, 100);
            commits.start(Map.of(TP, 100L));
            assertThatThrownBy(() -> commits.finish(true)).isInstanceOf(Crash.class);
            assertThat(store.committedOffsets(SHARD)).containsEntry("t-0", 100L);
            assertThat(kafka).isEmpty();
        } // closed without another commit, as a killed process leaves it

        crash[0] = false;
        try (LuceneStore store = lucene()) {
            CommitProtocol commits = protocol(store, offsets -> {
                assertKafkaNotAheadOfTheEngine(store, offsets);
                kafka.putAll(plain(offsets));
            });
            long from = kafka.getOrDefault(TP, 0L);
            assertThat(from)
                    .as("the restart reads again from Kafka's committed offset")
                    .isZero();
            write(store, from, 200);
            commits.start(Map.of(TP, 200L));
            commits.finish(true);
            assertThat(store.committedOffsets(SHARD)).containsEntry("t-0", 200L);
        }
        assertThat(kafka).containsExactly(Map.entry(TP, 200L));
        try (FSDirectory dir = FSDirectory.open(new ShardLayout(data).luceneDir(SHARD));
                DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            assertThat(reader.numDocs()).isEqualTo(200);
            for (long o = 0; o < 200; o++) {
                assertThat(searcher.count(new TermQuery(new Term(Fields.RECORD_ID, "id-" + o))))
                        .as("documents of id-%d", o)
                        .isEqualTo(1);
            }
        }
    }

    private static void assertKafkaNotAheadOfTheEngine(
            ShardStore store, Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            Map<String, Long> engine = store.committedOffsets(SHARD);
            offsets.forEach((tp, o) -> assertThat(o.offset())
                    .as("Kafka's offset of %s against the engine's", tp)
                    .isLessThanOrEqualTo(engine.getOrDefault(CommitProtocol.key(tp), 0L)));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
