package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import dev.logpipe.testkit.PrometheusScrape;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A store that fails under a running indexer (docs/indexer.md#when-the-index-store-fails): one tenant's shard
 * directory is taken away and a file put in its place. Before, the loop stopped (exit 4) and every restart replayed
 * into the same failure; now that tenant's partition is paused and retried, the other tenant's keeps indexing, and
 * once the disk is repaired every record of both is indexed.
 */
@Integration
class IndexerStoreFailureTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path data;

    @TempDir
    Path aside;

    @Test
    void aFailingShardPausesItsPartitionWhileTheOthersGoOnAndNothingIsLost() throws Exception {
        KAFKA.createTopic("sf.records", 2);
        KAFKA.createTopic("sf.dead-letter", 1);
        Logger logger = (Logger) LoggerFactory.getLogger("dev.logpipe.indexer.internal.consume.IndexLoop");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        ShardId acme = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
        Path shardDir = new ShardLayout(data).shardDir(acme);
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "sf", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            send(p, 0, "acme", "a-before", 5, t);
            send(p, 1, "globex", "g-before", 5, t);
            await().atMost(WAIT).until(() -> committed(indexer, 0) == 5 && committed(indexer, 1) == 5);

            Files.move(shardDir, aside.resolve("acme-shard")); // the disk loses the shard: a file in its place
            Files.writeString(shardDir, "not a directory");
            send(p, 0, "acme", "a-during", 5, t);
            await().atMost(WAIT)
                    .until(() -> status(indexer).path("write_failures").has("sf.records-0"));
            send(p, 1, "globex", "g-during", 5, t);
            await().atMost(WAIT).until(() -> committed(indexer, 1) == 10); // the other tenant goes on
            await().atMost(WAIT)
                    .until(() -> status(indexer)
                                    .path("write_failures")
                                    .path("sf.records-0")
                                    .path("failures")
                                    .asInt()
                            >= 2); // retried, failed again, backed off longer
            JsonNode failure = status(indexer).path("write_failures").path("sf.records-0");
            assertThat(failure.path("shard").asText()).contains(shardDir.toString());
            assertThat(failure.path("reason").asText()).isNotEmpty();
            assertThat(status(indexer).path("write_failures").has("sf.records-1")
                            && status(indexer)
                                            .path("write_failures")
                                            .path("sf.records-1")
                                            .path("failures")
                                            .asInt()
                                    > 1)
                    .as("the healthy partition is not held back")
                    .isFalse();
            assertThat(committed(indexer, 0))
                    .as("nothing past the failed records is committed")
                    .isEqualTo(5);
            assertThat(indexer.loop().isAlive()).isTrue();
            assertThat(indexer.loop().failure()).isNull();
            PrometheusScrape metrics = PrometheusScrape.parse(indexer.registry().scrape());
            assertThat(metrics.counter("logpipe_indexer_store_failures_total")).isGreaterThanOrEqualTo(2);
            assertThat(metrics.value("logpipe_indexer_partitions_write_failed")).isGreaterThanOrEqualTo(1);
            assertThat(lines.list.stream().map(ILoggingEvent::getFormattedMessage))
                    .anyMatch(m -> m.contains("the index store failed on the records of [sf.records-0]")
                            && m.contains("Check the disk"));

            Files.delete(shardDir); // repaired
            Files.move(aside.resolve("acme-shard"), shardDir);
            await().atMost(WAIT).until(() -> committed(indexer, 0) == 10 && committed(indexer, 1) == 10);
            await().atMost(WAIT)
                    .until(() -> status(indexer).path("write_failures").isEmpty());
        } finally {
            logger.detachAppender(lines);
        }
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), Clock.systemUTC())) {
            var all = store.shards(ShardKind.RECORDS);
            assertThat(IndexerFixture.count(store, all, "acme", "*:*")).isEqualTo(10);
            assertThat(IndexerFixture.count(store, all, "globex", "*:*")).isEqualTo(10);
        }
    }

    /**
     * A disk that takes writes (they are buffered) but fails every commit, as a full one does: the backoff doubles with
     * each failed commit, 1 s, 2 s, 4 s. Before, the write after each retry cleared the count, so the indexer rolled
     * back and logged every second for as long as the disk stayed full. The clock is the test's: a retry comes only
     * when the test moves it.
     */
    @Test
    void aCommitThatKeepsFailingBacksOffLongerEachTime() throws Exception {
        KAFKA.createTopic("cf.records", 1);
        KAFKA.createTopic("cf.dead-letter", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        AtomicReference<Instant> now = new AtomicReference<>(t);
        ShardId acme = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
        // The shard's metadata cannot be published (its temp file's name is taken by a directory): every commit of the
        // shard fails with an IOException, while its writes and its opening succeed.
        Files.createDirectories(new ShardLayout(data).shardDir(acme).resolve("shard.json.tmp"));
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "cf", data, "", now::get);
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            for (int i = 0; i < 3; i++) {
                IndexerFixture.send(p, "cf.records", Lines.record("acme", "a" + i, "record " + i, t));
            }
            Instant at = t;
            for (int n = 1; n <= 3; n++) {
                int failures = n;
                await().atMost(WAIT)
                        .until(() -> status(indexer)
                                        .path("write_failures")
                                        .path("cf.records-0")
                                        .path("failures")
                                        .asInt()
                                >= failures);
                JsonNode failure = status(indexer).path("write_failures").path("cf.records-0");
                Duration backoff = Duration.ofSeconds(1L << (n - 1));
                assertThat(failure.path("failures").asInt())
                        .as("failures in a row")
                        .isEqualTo(n);
                assertThat(failure.path("since").asText()).isEqualTo(t.toString());
                assertThat(Instant.parse(failure.path("retry_at").asText()))
                        .as("failure %d waits %s", n, backoff)
                        .isEqualTo(at.plus(backoff));
                at = at.plus(backoff);
                now.set(at); // the backoff is over: the partition is read, written and committed again
            }
            assertThat(indexer.loop().isAlive()).isTrue();
        }
    }

    /**
     * A line the indexer dead-letters, read again after each of three failed commits: four copies of its dead letter
     * reach the dead-letter topic, and the tenant's dead-letter shard holds one (before, each copy had the clock's
     * {@code observed_time} and its own document).
     */
    @Test
    void aLineReadAgainAfterAFailedCommitLeavesOneDeadLetter() throws Exception {
        KAFKA.createTopic("rd.records", 1);
        KAFKA.createTopic("rd.dead-letter", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        AtomicReference<Instant> now = new AtomicReference<>(t);
        ShardId acme = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
        Path blocker = new ShardLayout(data).shardDir(acme).resolve("shard.json.tmp");
        Files.createDirectories(blocker); // every commit fails, as in the test above
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "rd", data, "", now::get);
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            IndexerFixture.send(p, "rd.records", Lines.record("acme", "a0", "record 0", t));
            IndexerFixture.send(p, "rd.records", "{\"tenant_id\":\"acme\",\"schema_version\":3,\"message\":\n");
            Instant at = t;
            for (int n = 1; n <= 3; n++) {
                int failures = n;
                await().atMost(WAIT)
                        .until(() -> status(indexer)
                                        .path("write_failures")
                                        .path("rd.records-0")
                                        .path("failures")
                                        .asInt()
                                >= failures);
                at = at.plus(Duration.ofSeconds(1L << (n - 1)));
                now.set(at);
            }
            Files.delete(blocker); // repaired: the fourth reading commits
            await().atMost(WAIT).until(() -> committed(indexer, "rd.records-0") == 2);
            await().atMost(WAIT).until(() -> committed(indexer, "rd.dead-letter-0") == 4);
        }
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), Clock.systemUTC())) {
            assertThat(IndexerFixture.count(store, store.shards(ShardKind.RECORDS), "acme", "*:*"))
                    .isEqualTo(1);
            assertThat(IndexerFixture.count(store, store.shards(ShardKind.DEAD_LETTERS), "acme", "*:*"))
                    .as("one dead letter however often its line was read")
                    .isEqualTo(1);
        }
    }

    private static void send(
            KafkaProducer<byte[], byte[]> p, int partition, String tenant, String prefix, int n, Instant t)
            throws Exception {
        for (int i = 0; i < n; i++) {
            p.send(new ProducerRecord<>(
                            "sf.records",
                            partition,
                            null,
                            Lines.record(tenant, prefix + i, "record " + i, t).getBytes(StandardCharsets.UTF_8)))
                    .get();
        }
    }

    private static long committed(Indexer indexer, String partition) throws Exception {
        return status(indexer)
                .path("partitions")
                .path(partition)
                .path("committed")
                .path("offset")
                .asLong();
    }

    private static JsonNode status(Indexer indexer) throws Exception {
        return JSON.readTree(IndexerFixture.get(indexer, "/api/v1/status", null).body());
    }

    private static long committed(Indexer indexer, int partition) throws Exception {
        return status(indexer)
                .path("partitions")
                .path("sf.records-" + partition)
                .path("committed")
                .path("offset")
                .asLong();
    }
}
