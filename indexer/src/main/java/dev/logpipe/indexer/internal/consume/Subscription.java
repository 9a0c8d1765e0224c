package dev.logpipe.indexer.internal.consume;

import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.kafka.CommittingConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The loop's consumer, subscribed to the records and dead-letter topics once both exist ({@link TopicWait}). */
final class Subscription {
    private Subscription() {}

    /**
     * Waits for the topics (naming the missing ones), then opens the consumer and subscribes it with the listener
     * {@code rebalance} builds for it. Returns null when {@code running} turned false while waiting.
     */
    static KafkaConsumer<byte[], byte[]> open(
            IndexerConfig.Kafka k,
            BooleanSupplier running,
            Function<KafkaConsumer<byte[], byte[]>, ConsumerRebalanceListener> rebalance)
            throws InterruptedException {
        List<String> topics = List.of(k.topic(), k.deadLetterTopic());
        if (!new TopicWait(k.bootstrapServers(), k.properties(), Duration.ofSeconds(30)).await(topics, running)) {
            return null;
        }
        Map<String, Object> p = CommittingConsumer.settings(
                k.properties(),
                k.bootstrapServers(),
                k.groupId(),
                Map.of(
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        k.maxPollRecords(),
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                        k.fetchMaxBytes()));
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "logpipe-indexer");
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            consumer.subscribe(topics, rebalance.apply(consumer));
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            throw e;
        }
        return consumer;
    }
}
