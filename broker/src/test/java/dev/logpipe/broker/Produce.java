package dev.logpipe.broker;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/** Writes records the way logpipe's collector does (idempotent, acks=all) and returns once each one is acked. */
final class Produce {
    private Produce() {}

    /** Sends {@code count} records {@code prefix-0 ... prefix-(count-1)} (key = value); returns the acked values. */
    static Set<String> acked(String bootstrapServers, String topic, String prefix, int count) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                60_000);
        Set<String> acked = new LinkedHashSet<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String value = prefix + "-" + i;
                sent.add(producer.send(new ProducerRecord<>(topic, value, value)));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                sent.get(i).get(30, TimeUnit.SECONDS); // throws unless the broker acked it
                acked.add(prefix + "-" + i);
            }
        }
        return acked;
    }
}
