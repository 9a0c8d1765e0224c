package dev.logpipe.collector.publish;

import dev.logpipe.collector.config.CollectorConfig;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import dev.logpipe.collector.ingest.Outlet;
import dev.logpipe.collector.ingest.Outlet.Unavailable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Publishes with {@code acks=all} and an idempotent producer (seed 003 chapter 04, option B), and tells the caller
 * only once the broker committed every message: a write that the in-sync replicas (at least
 * {@code min.insync.replicas}) all hold. One producer is shared by every request (it is thread-safe).
 */
public final class KafkaPublisher implements Closeable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final long ackWaitMs;

    public KafkaPublisher(CollectorConfig.Kafka config) {
        Map<String, Object> p = new HashMap<>(config.properties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, config.compression());
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        p.putIfAbsent(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024);
        p.putIfAbsent(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        long delivery = config.deliveryTimeout().toMillis();
        long request = Math.max(1000, Math.min(10_000, delivery - 10));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) request);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(delivery, request + 10));
        // A request must not hang on metadata while the broker is down: fail fast, answer 503.
        p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Math.min(5_000, delivery));
        this.ackWaitMs = Math.max(delivery, request + 10) + 5_000;
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
        private final java.util.concurrent.atomic.AtomicLong pending = new java.util.concurrent.atomic.AtomicLong();
        private final AtomicReference<Exception> failed = new AtomicReference<>();

        Delivery(String topic, String deadLetterTopic) {
            this.topic = topic;
            this.deadLetterTopic = deadLetterTopic;
        }

        @Override
        public void record(String key, byte[] value, int records) throws Unavailable {
            send(topic, key, value);
        }

        @Override
        public void deadLetter(String tenant, byte[] value) throws Unavailable {
            send(deadLetterTopic, tenant, value);
        }

        private void send(String to, String key, byte[] value) throws Unavailable {
            Exception f = failed.get();
            if (f != null) {
                throw new Unavailable("Kafka did not commit a message: " + f, f);
            }
            pending.incrementAndGet();
            try {
                producer.send(new ProducerRecord<>(to, key.getBytes(StandardCharsets.UTF_8), value), (md, e) -> {
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
