package dev.logpipe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The settings our guarantees rest on win over whatever the operator wrote, and the timeouts fit together. */
class ClientRulesTest {
    private static final DurableProducer.Tuning TUNING = new DurableProducer.Tuning(
            "b:9092", "lz4", Duration.ofSeconds(30), Duration.ofMillis(5), Duration.ofSeconds(10));

    @Test
    void theOperatorCannotWeakenTheAcknowledgement() {
        Map<String, Object> p = DurableProducer.settings(
                Map.of(
                        "acks",
                        "1",
                        "enable.idempotence",
                        "false",
                        "max.in.flight.requests.per.connection",
                        "50",
                        "client.rack",
                        "r1"),
                Map.of(),
                TUNING);
        assertThat(p)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5)
                .containsEntry("client.rack", "r1")
                .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "b:9092");
    }

    @Test
    void defaultsFillOnlyWhatTheOperatorLeftUnset() {
        Map<String, Object> p = DurableProducer.settings(
                Map.of("batch.size", "1024"), Map.of("batch.size", 524288, "buffer.memory", 64L << 20), TUNING);
        assertThat(p).containsEntry("batch.size", "1024").containsEntry("buffer.memory", 64L << 20);
    }

    @Test
    void aRequestFitsInsideTheDeliveryTimeoutWithItsLinger() {
        for (long deliveryMs : new long[] {1_000, 1_500, 5_000, 30_000, 120_000}) {
            Map<String, Object> p = DurableProducer.settings(
                    Map.of(),
                    Map.of(),
                    new DurableProducer.Tuning(
                            "b:1",
                            "none",
                            Duration.ofMillis(deliveryMs),
                            Duration.ofMillis(200),
                            Duration.ofSeconds(10)));
            int request = (Integer) p.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
            int delivery = (Integer) p.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG);
            int linger = (Integer) p.get(ProducerConfig.LINGER_MS_CONFIG);
            assertThat(delivery)
                    .as("delivery.timeout.ms >= linger.ms + request.timeout.ms (Kafka refuses otherwise)")
                    .isGreaterThanOrEqualTo(linger + request);
            assertThat(request).isBetween(1000, 10_000);
            assertThat((Integer) p.get(ProducerConfig.MAX_BLOCK_MS_CONFIG)).isLessThanOrEqualTo((int) deliveryMs);
            assertThat(DurableProducer.ackWaitMillis(p)).isEqualTo(delivery + 5_000L);
        }
    }

    @Test
    void aCommittingConsumerNeverCommitsOnItsOwnAndReadsOnlyCommittedData() {
        Map<String, Object> c = CommittingConsumer.settings(
                Map.of("enable.auto.commit", "true", "isolation.level", "read_uncommitted", "fetch.min.bytes", "1"),
                "b:9092",
                "logpipe-indexer",
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000));
        assertThat(c)
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "logpipe-indexer")
                .containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)
                .containsEntry("fetch.min.bytes", "1");
    }
}
