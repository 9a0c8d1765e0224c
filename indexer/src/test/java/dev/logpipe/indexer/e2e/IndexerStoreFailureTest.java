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
import dev.logpipe.index.store.LuceneStore;
import dev.logpipe.index.store.StoreSettings;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
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
