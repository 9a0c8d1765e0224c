package dev.logpipe.broker.tools;

import dev.logpipe.broker.BrokerLogging;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code logpipe consume TOPIC [--from-beginning] [--max N]}: prints what is in a topic, one record per line. A
 * records-topic value holds one or more NDJSON records (docs/record-format.md#in-kafka): each is printed on its own
 * line. No consumer group (nothing is committed; it never disturbs the indexer). Without {@code --from-beginning} it
 * starts at the end and prints what arrives; it stops after {@code --max} records, or, with
 * {@code --from-beginning}, once it has read to the end offsets it found at its start and {@code --follow} is not
 * given.
 */
@Command(
        name = "logpipe consume",
        mixinStandardHelpOptions = true,
        description = "Print the records in a Kafka topic (NDJSON values split into one record per line).")
public final class ConsumeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TOPIC")
    String topic;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Default: ${DEFAULT-VALUE}.")
    String bootstrap;

    @Option(names = "--from-beginning", description = "Start at the earliest offset (default: only new records).")
    boolean fromBeginning;

    @Option(names = "--follow", description = "With --from-beginning: keep printing new records after the end.")
    boolean follow;

    @Option(names = "--max", paramLabel = "N", defaultValue = "0", description = "Stop after N records (0: no limit).")
    long max;

    public static void main(String[] args) {
        BrokerLogging.forTools();
        System.exit(new CommandLine(new ConsumeCommand()).execute(args));
    }

    @Override
    public Integer call() {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) TopicsCommand.TIMEOUT.toMillis());
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, TopicsCommand.TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                System.err.println("logpipe consume: topic " + topic + " does not exist at " + bootstrap
                        + " (logpipe topics list)");
                return 1;
            }
            List<TopicPartition> parts = new ArrayList<>();
            infos.forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            consumer.assign(parts);
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts, TopicsCommand.TIMEOUT);
            if (fromBeginning) {
                consumer.seekToBeginning(parts);
            } else {
                consumer.seekToEnd(parts);
            }
            boolean stopAtEnd = fromBeginning && !follow;
            long printed = 0;
            while (true) {
                if (stopAtEnd && reachedEnd(consumer, parts, ends)) {
                    return 0;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() == null) {
                        continue;
                    }
                    for (String line : new String(r.value(), StandardCharsets.UTF_8).split("\n")) {
                        if (line.isBlank()) {
                            continue;
                        }
                        System.out.println(line);
                        if (max > 0 && ++printed >= max) {
                            System.out.flush();
                            return 0;
                        }
                    }
                }
                System.out.flush();
            }
        } catch (TimeoutException e) {
            System.err.println("logpipe consume: no answer from " + bootstrap + " within "
                    + TopicsCommand.TIMEOUT.toSeconds() + " s; is the broker running (bin/logpipe broker)?");
            return 1;
        } catch (RuntimeException e) {
            System.err.println("logpipe consume: " + e.getMessage());
            return 1;
        }
    }

    private static boolean reachedEnd(
            KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts, Map<TopicPartition, Long> ends) {
        for (TopicPartition p : parts) {
            if (c.position(p) < ends.getOrDefault(p, 0L)) {
                return false;
            }
        }
        return true;
    }
}
