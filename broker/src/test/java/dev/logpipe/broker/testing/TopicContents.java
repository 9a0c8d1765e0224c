package dev.logpipe.broker.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic back with a real consumer: every record of every partition, from the beginning up to the end
 * offsets at the moment of the call. No consumer group, nothing committed, so it may be called any number of times.
 */
public final class TopicContents {
    private TopicContents() {}

    /**
     * @throws AssertionError the topic has no partitions, or the records up to the end offsets did not arrive within
     *                        {@code timeout}
     */
    public static List<ConsumerRecord<String, String>> readAll(
            String bootstrapServers, String topic, Duration timeout) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.CLIENT_ID_CONFIG,
                "logpipe-topic-contents");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic, timeout)) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            if (partitions.isEmpty()) {
                throw new AssertionError("topic " + topic + " has no partitions");
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!reachedEnd(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("read " + records.size() + " records of " + topic
                            + " but not up to its end " + end + " within " + timeout);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            return records;
        }
    }

    /**
     * The logpipe records in {@code messages}, in order: a message value is NDJSON, one or more schema-v3 records
     * each ending in a newline (a value without the final newline still counts its last line).
     */
    public static List<String> recordLines(List<ConsumerRecord<String, String>> messages) {
        List<String> lines = new ArrayList<>();
        for (ConsumerRecord<String, String> m : messages) {
            for (String line : m.value().split("\n")) {
                if (!line.isEmpty()) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    private static boolean reachedEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
