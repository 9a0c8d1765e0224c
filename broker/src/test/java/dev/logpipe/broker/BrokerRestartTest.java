package dev.logpipe.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Integration
class BrokerRestartTest {
    @TempDir
    Path dir;

    @Test
    void restartOnTheSameDirectoryKeepsTheClusterIdAndTheRecords() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start(BrokerConfig.onFreePorts(dir));
        BrokerConfig first = broker.config();
        String clusterId = broker.clusterId();
        Set<String> acked;
        try {
            broker.createTopic("kept", 3, 1, Map.of());
            acked = Produce.acked(broker.bootstrapServers(), "kept", "before-restart", 300);
        } finally {
            broker.close();
        }
        broker.close(); // a second close is a no-op
        assertThat(broker.isClosed()).isTrue();
        assertThat(Files.readString(first.logDir().resolve("meta.properties"))).contains("cluster.id=" + clusterId);

        try (EmbeddedBroker again = EmbeddedBroker.start(first)) {
            assertThat(again.clusterId()).isEqualTo(clusterId);
            assertThat(again.bootstrapServers()).isEqualTo("127.0.0.1:" + first.port());
            assertThat(TopicContents.readAll(again.bootstrapServers(), "kept", Duration.ofSeconds(30)))
                    .extracting(ConsumerRecord::value)
                    .containsExactlyInAnyOrderElementsOf(acked);
            again.createTopic("kept", 3, 1, Map.of()); // exists: only waits until it is served
        }
    }

    @Test
    void takenPortFailsTheStartNamesThePortAndLeavesNoThreadBehind() throws Exception {
        Set<String> before = nonDaemonThreads();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();

            assertThatThrownBy(() -> EmbeddedBroker.start(new BrokerConfig(dir, port, 0, Map.of())))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("port " + port);
        }
        // Kafka's threads are not daemons: one left running would keep a JVM alive for ever.
        await().pollInSameThread()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nonDaemonThreads()).isSubsetOf(before));
    }

    private static Set<String> nonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon())
                .map(Thread::getName)
                .collect(Collectors.toSet());
    }

    @Test
    void overridingWhatMakesTheBrokerSingleNodeIsRejected() {
        assertThatThrownBy(() -> BrokerConfig.onFreePorts(dir).withOverride("node.id", "2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kafkaOverrides: node.id is set by the embedded broker itself");
        assertThatThrownBy(() -> BrokerConfig.of(dir, 9092, 9092))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must differ");
    }
}
