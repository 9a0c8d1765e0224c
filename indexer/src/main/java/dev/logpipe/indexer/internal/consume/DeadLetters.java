package dev.logpipe.indexer.internal.consume;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.kafka.DurableProducer;
import dev.logpipe.record.RecordCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes the records the indexer cannot index to the dead-letter topic (acks=all, idempotent), in the collector's
 * dead-letter shape plus where the record came from. {@link #awaitAll} is called before offsets are committed, so a
 * record is never skipped without its dead letter being durable. Thread-safe (the decode thread publishes, the loop
 * thread awaits).
 */
final class DeadLetters implements AutoCloseable {
    static final int MAX_RAW_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final List<Future<RecordMetadata>> pending = new ArrayList<>();

    DeadLetters(String bootstrap, String topic, Map<String, String> properties) {
        // Kafka's own delivery and blocking defaults (2 min, 1 min): the loop waits for dead letters before it commits.
        Map<String, Object> p = DurableProducer.settings(
                properties,
                Map.of(),
                new DurableProducer.Tuning(
                        bootstrap, "none", Duration.ofMinutes(2), Duration.ofMillis(5), Duration.ofMinutes(1)));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "logpipe-indexer-dead-letters");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
    }

    /**
     * Publishes the dead letter of {@code len} bytes of {@code line} from {@code off}, which {@code from} says where
     * it was read, whose it is (its tenant, null when unknown) and when it was observed.
     */
    synchronized void publish(String reason, String detail, PollBatch.Origin from, byte[] line, int off, int len) {
        String tenant = from.tenant();
        ObjectNode o = JSON.createObjectNode();
        o.put("reason", reason);
        o.put("detail", detail.length() > 256 ? detail.substring(0, 256) : detail);
        if (tenant != null) {
            o.put("tenant_id", tenant);
        }
        o.put("observed_time", from.time().toString());
        o.put("raw", new String(line, off, Math.min(len, MAX_RAW_BYTES), StandardCharsets.UTF_8));
        o.put("source", "indexer");
        o.put("topic", from.topic());
        o.put("partition", from.partition());
        o.put("offset", from.offset());
        byte[] key = tenant == null ? null : tenant.getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> m =
                new ProducerRecord<>(topic, key, o.toString().getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            m.headers().add(RecordCodec.TENANT_HEADER, key);
        }
        pending.add(producer.send(m));
    }

    /** Waits until every dead letter sent so far is committed by the broker; throws if one was not. */
    void awaitAll() throws InterruptedException, ExecutionException {
        List<Future<RecordMetadata>> sent;
        synchronized (this) {
            sent = new ArrayList<>(pending);
            pending.clear();
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            f.get();
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
