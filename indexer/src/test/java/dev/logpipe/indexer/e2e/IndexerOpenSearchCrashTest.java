package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariant I3 with {@code store: opensearch} under crashes of the indexer: indexer child JVMs writing to a real
 * OpenSearch node are killed with SIGKILL in the middle of bulks (half of the kills between the offsets' store in
 * OpenSearch and the Kafka commit) while records stream in, some replayed; or one of two indexers of a consumer group is
 * killed and the other takes its partitions. Either way the node then holds exactly the distinct (tenant, record_id)
 * pairs produced: none missing, none twice.
 */
@ExtendWith(OpenSearchExtension.class)
@Integration
class IndexerOpenSearchCrashTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path work;

    @Test
    void killNineInTheMiddleOfBulksLosesNothingAndDuplicatesNothing(OpenSearchExtension.Node node) throws Exception {
        KAFKA.createTopic("oscrash.records", 3);
        KAFKA.createTopic("oscrash.dead-letter", 1);
        int port = FreePort.pick();
        Path config = config("oscrash", node, port, "oscrash-indexer-1");
        Set<String> produced = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(
                () -> OpenSearchIngest.produce(KAFKA.bootstrapServers(), "oscrash.records", produced, producing, 400),
                "oscrash-producer");
        producer.start();
        Random random = new Random(42);
        int kills = 0;
        try {
            for (int run = 0; run < 4; run++) {
                try (ChildJvm child = start("indexer-" + run, config)) {
                    child.awaitStderr("indexer ready", WAIT);
                    if (run % 2 == 0) { // after the offsets are stored in OpenSearch, before the Kafka commit
                        int before = occurrences(child.stderr(), PausedAfterEngineCommit.LINE);
                        await().atMost(WAIT)
                                .pollInterval(Duration.ofMillis(5))
                                .until(() -> occurrences(child.stderr(), PausedAfterEngineCommit.LINE) > before);
                    } else {
                        // sleep: kill point: random, nothing is awaited
                        Thread.sleep(300 + random.nextInt(1200));
                    }
                    assertThat(child.kill()).isEqualTo(137);
                    kills++;
                }
            }
        } finally {
            producing.set(false);
            producer.join();
        }
        assertThat(kills).isEqualTo(4);
        assertThat(produced).hasSizeGreaterThan(1000);
        try (ChildJvm last = start("indexer-last", config)) {
            last.awaitStderr("indexer ready", WAIT);
            Map<String, Long> end = OpenSearchIngest.endOffsets(KAFKA.bootstrapServers(), "oscrash.records", 3);
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> OpenSearchIngest.committedUpTo(List.of(port), end));
            assertThat(last.terminate(WAIT)).isEqualTo(143);
        }
        OpenSearchIngest.assertIndexedExactly(node, "oscrash", produced);
    }

    @Test
    void theSurvivorOfTwoIndexersInOneGroupTakesTheKilledOnesPartitions(OpenSearchExtension.Node node)
            throws Exception {
        KAFKA.createTopic("osgroup.records", 4);
        KAFKA.createTopic("osgroup.dead-letter", 1);
        int portA = FreePort.pick();
        int portB = FreePort.pick();
        // dynamic membership, a short session: the killed member's partitions move once its session expires
        Path configA = config("osgroup", node, portA, null);
        Path configB = config("osgroup", node, portB, null);
        Set<String> produced = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(
                () -> OpenSearchIngest.produce(KAFKA.bootstrapServers(), "osgroup.records", produced, producing, 300),
                "osgroup-producer");
        try (ChildJvm a = start("indexer-a", configA);
                ChildJvm b = start("indexer-b", configB)) {
            a.awaitStderr("indexer ready", WAIT);
            b.awaitStderr("indexer ready", WAIT);
            await().atMost(WAIT).until(() -> assigned(portA) > 0 && assigned(portB) > 0);
            producer.start();
            await().atMost(WAIT)
                    .until(() -> OpenSearchIngest.status(portB)
                                    .path("totals")
                                    .path("committed")
                                    .asLong()
                            > 0);
            assertThat(b.kill()).isEqualTo(137);
            await().atMost(WAIT).until(() -> assigned(portA) == 4); // the survivor owns every partition
            producing.set(false);
            producer.join();
            Map<String, Long> end = OpenSearchIngest.endOffsets(KAFKA.bootstrapServers(), "osgroup.records", 4);
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> OpenSearchIngest.committedUpTo(List.of(portA), end));
            assertThat(a.isAlive()).isTrue();
        } finally {
            producing.set(false);
            if (producer.isAlive()) {
                producer.join();
            }
        }
        assertThat(produced).hasSizeGreaterThan(1000);
        OpenSearchIngest.assertIndexedExactly(node, "osgroup", produced);
    }

    private static int assigned(int port) {
        try {
            JsonNode parts = OpenSearchIngest.status(port).path("partitions");
            int n = 0;
            for (var it = parts.fieldNames(); it.hasNext(); ) {
                if (it.next().contains(".records-")) {
                    n++;
                }
            }
            return n;
        } catch (Exception e) {
            return -1;
        }
    }

    private Path config(String prefix, OpenSearchExtension.Node node, int port, String instanceId) throws Exception {
        String properties = instanceId == null
                ? "  properties:\n    session.timeout.ms: \"6000\"\n    heartbeat.interval.ms: \"1000\"\n"
                : "  properties:\n    group.instance.id: " + instanceId + "\n    session.timeout.ms: \"10000\"\n";
        Path config = work.resolve(prefix + "-" + port + ".yaml");
        Files.writeString(
                config,
                IndexerFixture.yaml(
                                KAFKA.bootstrapServers(),
                                prefix,
                                work.resolve("data-" + port),
                                IndexerOpenSearchTest.opensearch(node, prefix))
                        .replace("listen: 127.0.0.1:0", "listen: 127.0.0.1:" + port)
                        .replace(
                                "  group_id: " + prefix + "-indexer\n",
                                "  group_id: " + prefix + "-indexer\n" + properties));
        return config;
    }

    private ChildJvm start(String name, Path config) {
        return ChildJvm.start(
                work,
                name,
                List.of("-Xmx256m"),
                CrashLoopIndexerMain.class.getName(),
                List.of("--config", config.toString()));
    }

    private static int occurrences(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
