package dev.logpipe.broker.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.testkit.Integration;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

@Integration
class ToolsTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    /** Exit code and standard output of one command. */
    private record Run(int code, String out) {}

    private static Run run(Object command, String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int code = new CommandLine(command).execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    @Test
    void topicsAreCreatedListedAndDescribedAndConsumeSplitsNdjsonValues() throws Exception {
        String bs = KAFKA.bootstrapServers();
        Run created = run(
                new TopicsCommand(),
                "--bootstrap",
                bs,
                "create",
                "tools.records",
                "--partitions",
                "2",
                "--config",
                "retention.ms=3600000");
        assertThat(created.code()).isZero();
        assertThat(created.out()).contains("topic tools.records ready partitions=2");
        assertThat(run(new TopicsCommand(), "--bootstrap", bs, "list").out()).contains("tools.records\tpartitions=2");

        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bs, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(),
                new StringSerializer())) {
            p.send(new ProducerRecord<>("tools.records", "k", "{\"message\":\"one\"}\n{\"message\":\"two\"}\n"))
                    .get();
            p.send(new ProducerRecord<>("tools.records", "k", "{\"message\":\"three\"}"))
                    .get();
        }
        Run described = run(new TopicsCommand(), "--bootstrap", bs, "describe", "tools.records");
        assertThat(described.out()).contains("partitions=2", "end_offset=2", "config retention.ms=3600000");

        Run all = run(new ConsumeCommand(), "tools.records", "--bootstrap", bs, "--from-beginning");
        assertThat(all.code()).isZero();
        assertThat(all.out().lines().toList())
                .containsExactly("{\"message\":\"one\"}", "{\"message\":\"two\"}", "{\"message\":\"three\"}");
        Run one = run(new ConsumeCommand(), "tools.records", "--bootstrap", bs, "--from-beginning", "--max", "1");
        assertThat(one.out().lines().toList()).hasSize(1);
    }

    @Test
    void aMissingTopicOrBrokerIsOneLineAndExitCode1() {
        assertThat(run(new ConsumeCommand(), "no.such.topic", "--bootstrap", KAFKA.bootstrapServers())
                        .code())
                .isEqualTo(1);
        assertThat(run(new TopicsCommand(), "--bootstrap", KAFKA.bootstrapServers(), "describe", "no.such.topic")
                        .code())
                .isEqualTo(1);
        assertThat(List.of(run(
                                new TopicsCommand(),
                                "--bootstrap",
                                KAFKA.bootstrapServers(),
                                "create",
                                "x",
                                "--partitions",
                                "0")
                        .code()))
                .containsExactly(2);
    }
}
