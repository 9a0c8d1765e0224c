package dev.logpipe.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Integration
class EmbeddedBrokerTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @Test
    void idempotentProducerWritingRightAfterTopicCreationLosesNoRecord() throws Exception {
        KAFKA.broker().createTopic("right-after-creation", 3, 1, Map.of());

        Set<String> acked = Produce.acked(KAFKA.bootstrapServers(), "right-after-creation", "r", 1000);

        List<ConsumerRecord<String, String>> read =
                TopicContents.readAll(KAFKA.bootstrapServers(), "right-after-creation", Duration.ofSeconds(30));
        assertThat(read).hasSize(1000);
        assertThat(read.stream().map(ConsumerRecord::value).collect(Collectors.toSet()))
                .isEqualTo(acked);
        assertThat(read.stream().map(ConsumerRecord::partition).collect(Collectors.toSet()))
                .as("keys spread the records over every partition")
                .containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void createTopicIsIdempotentAndAppliesConfigs() throws Exception {
        KAFKA.broker().createTopic("twice", 2, 1, Map.of("retention.ms", "3600000"));
        KAFKA.broker().createTopic("twice", 2, 1, Map.of("retention.ms", "3600000"));

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
            var description =
                    admin.describeTopics(List.of("twice")).allTopicNames().get().get("twice");
            assertThat(description.partitions()).hasSize(2);
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, "twice");
            assertThat(admin.describeConfigs(List.of(resource))
                            .all()
                            .get()
                            .get(resource)
                            .get("retention.ms")
                            .value())
                    .isEqualTo("3600000");
        }
    }

    @Test
    void existingTopicWithAnotherPartitionCountIsAnError() throws Exception {
        KAFKA.createTopic("two-partitions", 2);

        assertThatThrownBy(() -> KAFKA.createTopic("two-partitions", 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exists with 2 partitions, not the 3");
    }

    @Test
    void replicationFactorAboveOneIsRejectedBeforeAskingTheBroker() {
        assertThatThrownBy(() -> KAFKA.broker().createTopic("replicated", 1, 3, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 3");
    }

    @Test
    void producingToAMissingTopicDoesNotCreateIt() throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                KAFKA.bootstrapServers(),
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                500);
        try (var producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("never-created", "k", "v"))
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TimeoutException.class);
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get()).doesNotContain("never-created");
        }
    }
}
