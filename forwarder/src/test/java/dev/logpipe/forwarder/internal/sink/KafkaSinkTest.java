package dev.logpipe.forwarder.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.BrokerProcess;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.forwarder.RunningLoop;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka sink against a real broker: the embedded one, and a child-JVM broker that is killed with kill -9. */
@Integration
class KafkaSinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path dir;

    private RunningLoop loop;
    private ForwarderMetrics metrics;

    @AfterEach
    void stop() throws Exception {
        if (loop != null) {
            loop.close();
            loop = null;
        }
    }

    private void startForwarder(String bootstrap, String topic) throws Exception {
        start("""
                sink:
                  type: kafka
                  kafka:
                    bootstrap_servers: %s
                    topic: %s
                    delivery_timeout: 5s
                """.formatted(bootstrap, topic));
    }

    private void start(String sinkYaml) throws Exception {
        loop = RunningLoop.start(dir, RunningLoop.WATCH + sinkYaml);
        metrics = loop.metrics();
    }

    private Path append(List<String> lines) throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        Path p = dir.resolve("logs/app.log");
        Files.writeString(p, String.join("\n", lines) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return p;
    }

    private static List<String> numbered(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            out.add("line " + i);
        }
        return out;
    }

    private long watermark(Path p) {
        return loop.watermark(p);
    }

    private static List<String> messages(List<ConsumerRecord<String, String>> records) throws IOException {
        List<String> out = new ArrayList<>();
        for (String r : TopicContents.recordLines(records)) {
            out.add(JSON.readTree(r).get("message").asText());
        }
        return out;
    }

    @Test
    void tailedLinesArriveInKafkaAsSchemaV3RecordsWithKeyAndHeadersAfterTheWatermarkAdvances() throws Exception {
        KAFKA.createTopic("fw-e2e", 3);
        Path p = append(numbered(1, 500));
        startForwarder(KAFKA.bootstrapServers(), "fw-e2e");
        await().atMost(Duration.ofSeconds(30)).until(() -> watermark(p) == Files.size(p));

        List<ConsumerRecord<String, String>> records =
                TopicContents.readAll(KAFKA.bootstrapServers(), "fw-e2e", Duration.ofSeconds(20));
        assertThat(messages(records)).containsExactlyElementsOf(numbered(1, 500));
        assertThat(records)
                .extracting(ConsumerRecord::key)
                .containsOnly(records.get(0).key());
        assertThat(records)
                .extracting(ConsumerRecord::partition)
                .containsOnly(records.get(0).partition());
        ConsumerRecord<String, String> first = records.get(0);
        assertThat(new String(first.headers().lastHeader(KafkaSink.HEADER_PATH).value(), StandardCharsets.UTF_8))
                .isEqualTo(p.toString());
        assertThat(new String(
                        first.headers().lastHeader(KafkaSink.HEADER_OFFSET).value(), StandardCharsets.UTF_8))
                .isEqualTo("0");
        assertThat(records).as("500 short records travel in fewer messages").hasSizeLessThan(500);
        assertThat(records)
                .as("the records header counts each message's newline-terminated records")
                .allSatisfy(r -> assertThat(new String(
                                r.headers().lastHeader(KafkaSink.HEADER_RECORDS).value(), StandardCharsets.US_ASCII))
                        .isEqualTo(Long.toString(
                                r.value().chars().filter(c -> c == '\n').count())));
        JsonNode json = JSON.readTree(TopicContents.recordLines(records).get(0));
        assertThat(json.get("schema_version").asInt()).isEqualTo(3);
        assertThat(json.get("record_id").asText()).hasSize(32);
        assertThat(json.get("fields").get("log.file.path").asText()).isEqualTo(p.toString());
    }

    @Test
    void switchingFromKafkaToFileKeepsTheWatermarkOldLinesAreNotResentNewLinesGoToTheFile() throws Exception {
        KAFKA.createTopic("fw-switch", 1);
        Path p = append(numbered(1, 50));
        startForwarder(KAFKA.bootstrapServers(), "fw-switch");
        await().atMost(Duration.ofSeconds(30)).until(() -> watermark(p) == Files.size(p));
        stop();

        append(numbered(51, 60));
        start("sink:\n  type: file\n  file:\n    path: ./out/records.ndjson\n    format: raw\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> watermark(p) == Files.size(p));
        assertThat(Files.readAllLines(dir.resolve("out/records.ndjson"))).containsExactlyElementsOf(numbered(51, 60));
        assertThat(messages(TopicContents.readAll(KAFKA.bootstrapServers(), "fw-switch", Duration.ofSeconds(20))))
                .containsExactlyElementsOf(numbered(1, 50));
    }

    @Test
    void brokerKilledMidStreamAndRestartedLosesNoLineAndTheForwarderRecoversByItself() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"))) {
            broker.createTopic("fw-crash", 1, Map.of());
            Path p = append(numbered(1, 300));
            startForwarder(broker.bootstrapServers(), "fw-crash");
            await().atMost(Duration.ofSeconds(30)).until(() -> watermark(p) == Files.size(p));

            broker.kill();
            append(numbered(301, 600));
            long sizeAfterWrite = Files.size(p);
            await().atMost(Duration.ofSeconds(30)).until(() -> metrics.publishFailures.count() >= 1);
            assertThat(watermark(p))
                    .as("nothing is acknowledged while the broker is down")
                    .isLessThan(sizeAfterWrite);

            broker.restart();
            await().atMost(Duration.ofSeconds(60)).until(() -> watermark(p) == Files.size(p));
            List<String> got =
                    messages(TopicContents.readAll(broker.bootstrapServers(), "fw-crash", Duration.ofSeconds(20)));
            Set<String> distinct = new HashSet<>(got);
            assertThat(distinct).containsExactlyInAnyOrderElementsOf(numbered(1, 600));
            assertThat(got.subList(0, 300)).containsExactlyElementsOf(numbered(1, 300));
            stop();
        }
    }
}
