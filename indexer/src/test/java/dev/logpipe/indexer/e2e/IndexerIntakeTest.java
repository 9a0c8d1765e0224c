package dev.logpipe.indexer.e2e;

import static dev.logpipe.indexer.IndexerFixture.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.indexer.ForwardingShardStore;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** How records get in: missing topics, records without a tenant, a store that falls behind, what INDEXED means. */
@Integration
class IndexerIntakeTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path data;

    private void topics(String prefix, int partitions) throws Exception {
        KAFKA.createTopic(prefix + ".records", partitions);
        KAFKA.createTopic(prefix + ".dead-letter", 1);
    }

    private static JsonNode status(Indexer indexer) throws Exception {
        return JSON.readTree(IndexerFixture.get(indexer, "/api/v1/status", null).body());
    }

    @Test
    void missingTopicsAreNamedInALogLineAndConsumedOnceTheyExist() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.logpipe.indexer.internal.consume.TopicWait");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "late", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            await().atMost(WAIT)
                    .until(() -> lines.list.stream()
                            .anyMatch(e -> e.getFormattedMessage()
                                    .contains("waiting for topics late.records, late.dead-letter")));
            assertThat(IndexerFixture.get(indexer, "/readyz", null).statusCode())
                    .isEqualTo(503);
            topics("late", 1);
            IndexerFixture.send(p, "late.records", Lines.record("acme", "late-1", "arrived late", t));
            ShardId shard = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(shard), "acme", "*:*") == 1);
            assertThat(IndexerFixture.get(indexer, "/readyz", null).statusCode())
                    .isEqualTo(200);
            assertThat(lines.list.stream().map(ILoggingEvent::getFormattedMessage))
                    .anyMatch(m -> m.contains("topics [late.records, late.dead-letter] exist now"));
        } finally {
            logger.detachAppender(lines);
        }
    }

    /** A forwarder's Kafka sink writes records without tenant_id (no collector attributed one). */
    private static String forwarderLine(String id, String message, Instant t) {
        return "{\"schema_version\":3,\"record_id\":\"" + id + "\",\"event_time\":\"" + t + "\",\"instance_id\":"
                + "\"web-1\",\"message\":\"" + message + "\",\"fields\":{\"log.file.path\":\"/var/log/app.log\"}}\n";
    }

    @Test
    void recordsWithoutATenantGoToTheDefaultTenantAndKeepTheirOwnOtherwise() throws Exception {
        topics("fwd", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(), "fwd", data, "", Clock.systemUTC(), "  default_tenant: web-team\n");
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            IndexerFixture.send(
                    p,
                    "fwd.records",
                    forwarderLine("f-1", "from the forwarder", t) + Lines.record("acme", "c-1", "from a collector", t));
            ShardId web = ShardId.records("web-team", LocalDate.ofInstant(t, ZoneOffset.UTC));
            ShardId acme = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
            await().atMost(WAIT)
                    .until(() -> count(indexer.store(), List.of(web), "web-team", "*:*") == 1
                            && count(indexer.store(), List.of(acme), "acme", "*:*") == 1);
            List<Hit> hits =
                    StoreReads.hits(new LiveShards(indexer.store()), List.of(web), "web-team", "forwarder", 10);
            JsonNode hit = JSON.readTree(hits.get(0).source());
            assertThat(hit.get("tenant_id").asText()).isEqualTo("web-team"); // the stored source says so too
            assertThat(hit.get("record_id").asText()).isEqualTo("f-1");
            assertThat(count(indexer.store(), List.of(web), "web-team", "tenant_id:web-team"))
                    .isEqualTo(1);
            assertThat(indexer.registry().scrape()).contains("logpipe_indexer_records_default_tenant_total 1.0");
        }
    }

    @Test
    void withoutADefaultTenantSuchARecordIsADeadLetterNamingTheSetting() throws Exception {
        topics("notenant", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "notenant", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            IndexerFixture.send(p, "notenant.records", forwarderLine("f-1", "from the forwarder", t));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    TopicContents.readAll(KAFKA.bootstrapServers(), "notenant.dead-letter", WAIT))
                            .hasSize(1));
            JsonNode dl = JSON.readTree(TopicContents.readAll(KAFKA.bootstrapServers(), "notenant.dead-letter", WAIT)
                    .get(0)
                    .value());
            assertThat(dl.get("reason").asText()).isEqualTo("NO_TENANT");
            assertThat(dl.get("detail").asText()).contains("kafka.default_tenant");
        }
    }

    @Test
    void aStoreThatFallsBehindPausesConsumptionInsteadOfGrowing() throws Exception {
        topics("slow", 2);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Indexer indexer = IndexerFixture.start(
                        SlowEngineCommits::new,
                        KAFKA.bootstrapServers(),
                        "slow",
                        data,
                        "",
                        Clock.systemUTC(),
                        "  max_poll_records: 2\n",
                        "commit:\n  max_records: 5\n");
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            await().atMost(WAIT)
                    .until(() -> IndexerFixture.get(indexer, "/readyz", null).statusCode() == 200);
            for (int m = 0; m < 40; m++) {
                StringBuilder v = new StringBuilder();
                for (int i = 0; i < 10; i++) {
                    v.append(Lines.record("acme", "slow-" + m + "-" + i, "slow " + i, t));
                }
                p.send(new ProducerRecord<>(
                        "slow.records",
                        Integer.toString(m).getBytes(),
                        v.toString().getBytes()));
            }
            p.flush();
            // each commit takes 2 s: once 5 more messages are written meanwhile, every partition is paused
            await().atMost(WAIT).until(() -> indexer.registry().scrape().contains("logpipe_indexer_paused 1.0"));
            JsonNode paused = status(indexer).get("totals");
            assertThat(paused.get("read").asLong())
                    .as("read while paused in %s", paused)
                    .isLessThan(40);
            ShardId shard = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(shard), "acme", "*:*") == 400);
            await().atMost(WAIT)
                    .until(() -> status(indexer).get("totals").get("committed").asLong() >= 40);
            assertThat(indexer.registry().scrape()).contains("logpipe_indexer_pauses_total{reason=\"commit_behind\"}");
        }
    }

    /** Records which threads prepare and write, and whether every write was of something it prepared. */
    static final class WatchedPreparation extends ForwardingShardStore {
        private record Marked(ShardStore.Prepared inner) implements ShardStore.Prepared {
            @Override
            public Map<ShardId, List<IndexRecord>> batches() {
                return inner.batches();
            }
        }

        final Set<String> preparing = ConcurrentHashMap.newKeySet();
        final Set<String> writing = ConcurrentHashMap.newKeySet();
        final AtomicInteger unprepared = new AtomicInteger();

        WatchedPreparation(ShardStore delegate) {
            super(delegate);
        }

        @Override
        public Prepared prepare(Map<ShardId, List<IndexRecord>> batches) {
            preparing.add(Thread.currentThread().getName());
            return new Marked(super.prepare(batches));
        }

        @Override
        public Map<ShardId, Written> writeAll(Map<ShardId, List<IndexRecord>> batches) throws WriteFailed {
            unprepared.incrementAndGet();
            return super.writeAll(batches);
        }

        @Override
        public Map<ShardId, Written> writeAll(Prepared prepared) throws WriteFailed {
            writing.add(Thread.currentThread().getName());
            if (!(prepared instanceof Marked m)) {
                unprepared.incrementAndGet();
                return super.writeAll(prepared);
            }
            return super.writeAll(m.inner());
        }
    }

    @Test
    void aPollIsPreparedForTheStoreOnTheDecodeThreadAndTheLoopWritesWhatWasPrepared() throws Exception {
        topics("prep", 2);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        WatchedPreparation[] store = new WatchedPreparation[1];
        try (Indexer indexer = IndexerFixture.start(
                        s -> store[0] = new WatchedPreparation(s),
                        KAFKA.bootstrapServers(),
                        "prep",
                        data,
                        "",
                        Clock.systemUTC(),
                        "");
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            for (int i = 0; i < 20; i++) {
                IndexerFixture.send(
                        p, "prep.records", Lines.record(i % 2 == 0 ? "acme" : "zeta", "p-" + i, "prepared " + i, t));
            }
            LocalDate day = LocalDate.ofInstant(t, ZoneOffset.UTC);
            await().atMost(WAIT)
                    .until(() -> count(indexer.store(), List.of(ShardId.records("acme", day)), "acme", "*:*") == 10
                            && count(indexer.store(), List.of(ShardId.records("zeta", day)), "zeta", "*:*") == 10);
            assertThat(store[0].preparing).containsExactly("indexer-decode");
            assertThat(store[0].writing).containsExactly("indexer-loop");
            assertThat(store[0].unprepared.get())
                    .as("writes of batches not prepared")
                    .isZero();
        }
    }

    @Test
    void indexedMeansInTheStoreBeforeItIsQueryableOrCommitted() throws Exception {
        topics("stage", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        // neither a refresh nor a commit comes in the test's time: INDEXED is reached alone (docs/architecture.md,
        // lifecycle stages:
        // "a document exists in the store", "not yet guaranteed visible to a live query")
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(),
                        "stage",
                        data,
                        "",
                        Clock.systemUTC(),
                        "",
                        "commit:\n  interval: 1h\n",
                        "refresh:\n  interval: 1h\n");
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            await().atMost(WAIT)
                    .until(() -> IndexerFixture.get(indexer, "/readyz", null).statusCode() == 200);
            IndexerFixture.send(p, "stage.records", Lines.record("acme", "s-1", "staged", t));
            await().atMost(WAIT)
                    .until(() -> status(indexer).get("totals").get("indexed").asLong() == 1);
            JsonNode totals = status(indexer).get("totals");
            assertThat(totals.get("read").asLong()).isEqualTo(1);
            assertThat(totals.get("queryable").asLong()).isZero();
            assertThat(totals.get("committed").asLong()).isZero();
        }
        // closing committed it (index-then-commit on shutdown): a restart finds it in a Lucene commit
        try (Indexer again = IndexerFixture.start(KAFKA.bootstrapServers(), "stage", data, "", Clock.systemUTC())) {
            ShardId shard = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
            await().atMost(WAIT).until(() -> count(again.store(), List.of(shard), "acme", "*:*") == 1);
            assertThat(again.store().committedOffsets(shard)).containsEntry("stage.records-0", 1L);
        }
    }
}
