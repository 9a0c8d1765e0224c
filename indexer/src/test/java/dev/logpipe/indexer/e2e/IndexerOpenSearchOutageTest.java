package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import dev.logpipe.testkit.PrometheusScrape;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenSearch node goes away under a running indexer ({@code store: opensearch}) and comes back on the same data and
 * port (docs/deployment.md#opensearch): the node is killed with SIGKILL mid-ingest and started again once the indexer
 * failed three times in a row (its partitions paused with backoffs of 1, 2 and 4 s), so the outage lasts those seconds
 * plus the node's restart, about 10 s on the test machine: shorter than the 30 s to keep the test short, long
 * enough to go through the backoff more than once (the 429/503 resend pauses do not apply: a node that is gone answers
 * nothing). Meanwhile the records keep coming, the group's offsets in Kafka do not move (nothing is committed that
 * OpenSearch did not acknowledge) and the indexer stays up, through retention checks that cannot list the indices
 * (before, the first one stopped the loop); after it every record Kafka acknowledged is indexed exactly once.
 */
@ExtendWith(OpenSearchExtension.class)
@Integration
class IndexerOpenSearchOutageTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path data;

    @Test
    void aNodeOutagePausesThePartitionsCommitsNothingMoreAndLosesNothing(OpenSearchExtension.Node node)
            throws Exception {
        KAFKA.createTopic("osout.records", 2);
        KAFKA.createTopic("osout.dead-letter", 1);
        Set<String> produced = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(
                () -> OpenSearchIngest.produce(KAFKA.bootstrapServers(), "osout.records", produced, producing, 600),
                "osout-producer");
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(),
                        "osout",
                        data,
                        // a retention check (it lists the indices) falls inside the outage
                        IndexerOpenSearchTest.opensearch(node, "osout") + "retention:\n  check_interval: 1s\n",
                        Clock.systemUTC());
                Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            producer.start();
            await().atMost(WAIT)
                    .until(() ->
                            status(indexer).path("totals").path("committed").asLong() > 0);

            node.kill();
            await().atMost(WAIT)
                    .until(() -> failures(indexer) >= 1
                            && status(indexer).path("write_failures").size() == 2);
            Map<String, Long> atFailure = groupOffsets(admin);
            await().atMost(WAIT).until(() -> failures(indexer) >= 3);
            assertThat(indexer.loop().isAlive()).isTrue();
            assertThat(PrometheusScrape.parse(indexer.registry().scrape())
                            .value("logpipe_indexer_partitions_write_failed"))
                    .as("both partitions paused")
                    .isEqualTo(2);
            node.restart();
            assertThat(groupOffsets(admin))
                    .as("no offset committed in Kafka while OpenSearch acknowledged nothing")
                    .isEqualTo(atFailure);

            producing.set(false);
            producer.join();
            Map<String, Long> end = OpenSearchIngest.endOffsets(KAFKA.bootstrapServers(), "osout.records", 2);
            await().atMost(WAIT)
                    .until(() -> OpenSearchIngest.committedUpTo(
                            List.of(indexer.address().getPort()), end));
            await().atMost(WAIT)
                    .until(() -> status(indexer).path("write_failures").isEmpty());
            assertThat(indexer.loop().isAlive()).isTrue();
            assertThat(indexer.loop().failure()).isNull();
            assertThat(PrometheusScrape.parse(indexer.registry().scrape())
                            .counter("logpipe_indexer_store_failures_total"))
                    .isGreaterThanOrEqualTo(3);
        } finally {
            producing.set(false);
            producer.join();
            node.restart(); // the other tests of this JVM share the node
        }
        assertThat(produced).hasSizeGreaterThan(1000);
        OpenSearchIngest.assertIndexedExactly(node, "osout", produced);
    }

    private static JsonNode status(Indexer indexer) throws Exception {
        return OpenSearchIngest.status(indexer.address().getPort());
    }

    /** The most failures in a row of any paused partition. */
    private static int failures(Indexer indexer) throws Exception {
        int most = 0;
        for (JsonNode f : status(indexer).path("write_failures")) {
            most = Math.max(most, f.path("failures").asInt());
        }
        return most;
    }

    private static Map<String, Long> groupOffsets(Admin admin) throws Exception {
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(
                        "osout-indexer")
                .partitionsToOffsetAndMetadata()
                .get();
        return offsets.entrySet().stream()
                .filter(e -> e.getKey().topic().equals("osout.records"))
                .collect(Collectors.toMap(
                        e -> e.getKey().toString(), e -> e.getValue().offset()));
    }
}
