package dev.logpipe.collector.internal.publish;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.internal.ingest.Outlet;
import dev.logpipe.collector.internal.ingest.Outlet.Unavailable;
import dev.logpipe.kafka.DurableProducer;
import dev.logpipe.record.RecordCodec;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes with {@code acks=all} and an idempotent producer (docs/architecture.md, invariant I2), and tells the caller
 * only once the broker committed every message: a write that the in-sync replicas (at least
 * {@code min.insync.replicas}) all hold. Every message carries its tenant in the header
 * {@link RecordCodec#TENANT_HEADER}. One producer is shared by every request (it is thread-safe).
 */
public final class KafkaPublisher implements Closeable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final long ackWaitMs;

    public KafkaPublisher(CollectorConfig.Kafka config) {
        Map<String, Object> defaults = Map.of(
                ProducerConfig.BATCH_SIZE_CONFIG,
                512 * 1024,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                4 * 1024 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                64L * 1024 * 1024);
        String lingerMs = config.properties().getOrDefault(ProducerConfig.LINGER_MS_CONFIG, "2");
        // A request must not hang on metadata while the broker is down: fail fast (5 s at most), answer 503.
        Map<String, Object> p = DurableProducer.settings(
                config.properties(),
                defaults,
                new DurableProducer.Tuning(
                        config.bootstrapServers(),
                        config.compression(),
                        config.deliveryTimeout(),
                        Duration.ofMillis(Long.parseLong(lingerMs.trim())),
                        Duration.ofSeconds(5)));
        this.ackWaitMs = DurableProducer.ackWaitMillis(p);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A new outlet for one request: records to {@code topic}, dead letters to {@code deadLetterTopic}. */
    public Outlet open(String topic, String deadLetterTopic) {
        return new Delivery(topic, deadLetterTopic);
    }

    /**
     * One request's sends: each handed to the producer at once (which copies it into its bounded buffer), their
     * acknowledgements awaited together. After the first failure nothing more is sent for the request.
     */
    private final class Delivery implements Outlet {
        private final String topic;
        private final String deadLetterTopic;
        /** Sends not yet acknowledged: a count, not a list, so a request of millions of messages holds nothing. */
        private final AtomicLong pending = new AtomicLong();

        private final AtomicReference<Exception> failed = new AtomicReference<>();

        Delivery(String topic, String deadLetterTopic) {
            this.topic = topic;
            this.deadLetterTopic = deadLetterTopic;
        }

        @Override
        public void record(String tenant, String key, byte[] value, int records) throws Unavailable {
            send(topic, tenant, key, value);
        }

        @Override
        public void deadLetter(String tenant, byte[] value) throws Unavailable {
            send(deadLetterTopic, tenant, tenant, value);
        }

        private void send(String to, String tenant, String key, byte[] value) throws Unavailable {
            Exception f = failed.get();
            if (f != null) {
                throw new Unavailable("Kafka did not commit a message: " + f, f);
            }
            pending.incrementAndGet();
            try {
                ProducerRecord<byte[], byte[]> m =
                        new ProducerRecord<>(to, key.getBytes(StandardCharsets.UTF_8), value);
                m.headers().add(RecordCodec.TENANT_HEADER, tenant.getBytes(StandardCharsets.UTF_8));
                producer.send(m, (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                    if (pending.decrementAndGet() == 0) {
                        synchronized (this) {
                            notifyAll();
                        }
                    }
                });
            } catch (KafkaException | IllegalStateException e) {
                pending.decrementAndGet();
                throw new Unavailable("Kafka producer cannot send: " + e.getMessage(), e);
            }
        }

        @Override
        public void await() throws Unavailable {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ackWaitMs);
            synchronized (this) {
                while (pending.get() > 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new Unavailable("Kafka did not commit within " + ackWaitMs + " ms", null);
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new Unavailable("interrupted while waiting for Kafka", e);
                    }
                }
            }
            Exception f = failed.get();
            if (f != null) {
                throw new Unavailable("Kafka did not commit a message: " + f, f);
            }
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
