package dev.logpipe.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.broker.testing.BrokerProcess;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Integration
class BrokerProcessTest {
    @TempDir
    Path dir;

    @Test
    void recordsAckedBeforeKillMinus9AreReadableAfterRestart() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir)) {
            broker.createTopic("crash", 3, Map.of());
            Set<String> acked = new HashSet<>(Produce.acked(broker.bootstrapServers(), "crash", "before-kill", 500));

            assertThat(broker.kill()).isEqualTo(137);
            broker.restart();

            acked.addAll(Produce.acked(broker.bootstrapServers(), "crash", "after-restart", 100));
            assertThat(TopicContents.readAll(broker.bootstrapServers(), "crash", Duration.ofSeconds(30)))
                    .extracting(ConsumerRecord::value)
                    .containsExactlyInAnyOrderElementsOf(acked);
        }
    }

    @Test
    void sigtermStopsTheBrokerCleanlyAndStdoutCarriesOnlyTheReadyLine() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir)) {
            assertThat(broker.stdout()).isEqualTo("broker ready bootstrap=" + broker.bootstrapServers() + "\n");

            assertThat(broker.stop()).isEqualTo(143);
            assertThat(broker.stderr()).contains("stopped in").doesNotContain("ERROR");
            assertThat(broker.isAlive()).isFalse();
        }
    }
}
