package dev.logpipe.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first half of the pipeline end to end: a real log-forwarder child process tails a file and posts zstd NDJSON
 * with its API key to a real collector, which publishes to the embedded broker. Every line arrives once, as the
 * key's tenant, redacted, and the forwarder's watermark reaches the end of the file only after the collector
 * answered.
 */
@Integration
class ForwarderToCollectorTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path dir;

    @Test
    void linesTailedByAForwarderArriveInKafkaAsTheKeysTenantRedacted() throws Exception {
        Files.createDirectories(dir.resolve("logs"));
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 300; i++) {
            lines.add("e2e line " + i + (i == 7 ? " password=hunter2" : ""));
        }
        Path log = dir.resolve("logs/app.log");
        Files.writeString(log, String.join("\n", lines) + "\n");
        try (CollectorFixture collector = CollectorFixture.start(KAFKA.bootstrapServers(), "e2e", "")) {
            Files.writeString(dir.resolve("forwarder.yaml"), """
                    watch:
                      poll: 50ms
                      state:
                        path: state/watermarks.json
                      sources:
                        - path: logs
                          patterns: ["*.log"]
                    sink:
                      type: http
                      http:
                        url: %s
                        token: %s
                        compression: zstd
                    """.formatted(
                            collector.url("/api/v1/logs"), CollectorFixture.ACME_KEY));
            try (ChildJvm forwarder = ChildJvm.start(
                    dir,
                    "forwarder",
                    "dev.logpipe.forwarder.cli.ForwarderCommand",
                    List.of("-config", "forwarder.yaml"))) {
                forwarder.awaitStderr("log forwarder started", Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(30)).until(() -> messages().size() >= 300);
                List<JsonNode> got = records();
                assertThat(got).extracting(n -> n.get("tenant_id").asText()).containsOnly("acme");
                assertThat(messages())
                        .hasSize(300)
                        .contains("e2e line 7 password=[REDACTED:secret_pair]")
                        .doesNotContain("e2e line 7 password=hunter2");
                assertThat(forwarder.stderr()).doesNotContain("failed");
                forwarder.terminate(Duration.ofSeconds(30));
            }
            assertThat(JSON.readTree(dir.resolve("state/watermarks.json").toFile())
                            .findValues("offset"))
                    .extracting(JsonNode::asLong)
                    .containsExactly(Files.size(log));
        }
    }

    private static List<JsonNode> records() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : TopicContents.recordLines(
                TopicContents.readAll(KAFKA.bootstrapServers(), "e2e.records", Duration.ofSeconds(20)))) {
            out.add(JSON.readTree(l));
        }
        return out;
    }

    private static List<String> messages() throws Exception {
        return records().stream().map(n -> n.get("message").asText()).toList();
    }
}
