package dev.logpipe.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Producer settings under which an acknowledgement means the record is {@code DURABLE_IN_BROKER}: {@code acks=all}
 * (every in-sync replica has it, at least {@code min.insync.replicas}), an idempotent producer (a retried send is
 * written once, in order, with up to five requests in flight), and timeouts that fit together (a request is retried
 * within the delivery timeout; {@code send} never blocks on metadata longer than a delivery may take). See
 * docs/architecture.md, invariant I2.
 *
 * <p>The operator's {@code properties} are the base; the guarantee keys always win over them, and each caller's
 * defaults fill only what the operator left unset.
 */
public final class DurableProducer {
    /** How much longer than the producer's own delivery timeout a caller waits for an acknowledgement. */
    public static final Duration ACK_WAIT_MARGIN = Duration.ofSeconds(5);

    private DurableProducer() {}

    /**
     * A caller's choices: where to send, how to compress, how long a delivery may take, how long to linger, and the
     * longest a {@code send} may block for metadata.
     */
    public record Tuning(
            String bootstrapServers, String compression, Duration deliveryTimeout, Duration linger, Duration maxBlock) {
        public Tuning {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(compression, "compression");
            Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
            Objects.requireNonNull(linger, "linger");
            Objects.requireNonNull(maxBlock, "maxBlock");
        }
    }

    /**
     * The producer settings: {@code properties} (the operator's), then the caller's {@code defaults} where the
     * operator set nothing, then the fixed guarantee keys and the {@code tuning}.
     */
    public static Map<String, Object> settings(
            Map<String, String> properties, Map<String, Object> defaults, Tuning tuning) {
        Map<String, Object> p = new HashMap<>(properties);
        defaults.forEach(p::putIfAbsent);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, tuning.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, tuning.compression());
        long linger = tuning.linger().toMillis();
        long delivery = tuning.deliveryTimeout().toMillis();
        // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms; a request gets at most 10 s.
        long request = Math.max(1000, Math.min(10_000, delivery - linger - 1));
        p.put(ProducerConfig.LINGER_MS_CONFIG, (int) linger);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) request);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(delivery, request + linger));
        p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int)
                Math.min(tuning.maxBlock().toMillis(), delivery));
        return p;
    }

    /** How long to wait for one send's acknowledgement under {@code settings}: its delivery timeout plus a margin. */
    public static long ackWaitMillis(Map<String, Object> settings) {
        return ((Number) settings.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).longValue()
                + ACK_WAIT_MARGIN.toMillis();
    }
}
