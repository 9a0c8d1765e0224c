package dev.logpipe.collector.internal.publish;

import dev.logpipe.collector.config.CollectorConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the records and dead-letter topics at startup if they are missing (partitions, replication factor and
 * {@code min.insync.replicas} from the configuration), then waits until every partition has a leader, so the first
 * publish does not fail on a topic that exists but is not served yet (KAFKA-15591). Also answers /readyz.
 */
public final class TopicSetup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);
    private final CollectorConfig.Kafka config;
    private final Admin admin;

    public TopicSetup(CollectorConfig.Kafka config) {
        this.config = config;
        Map<String, Object> p = new HashMap<>(config.properties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        this.admin = Admin.create(p);
    }

    /** @throws IllegalStateException the topics could not be created or served within {@code timeout} */
    public void ensureTopics(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String topic : List.of(config.topic(), config.deadLetterTopic())) {
            NewTopic t = new NewTopic(topic, config.partitions(), config.replicationFactor())
                    .configs(Map.of(
                            "min.insync.replicas",
                            Integer.toString(config.minInsyncReplicas()),
                            "max.message.bytes",
                            Integer.toString(4 * 1024 * 1024)));
            try {
                admin.createTopics(List.of(t)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                log.info(
                        "created topic {} partitions={} replication_factor={} min.insync.replicas={}",
                        topic,
                        config.partitions(),
                        config.replicationFactor(),
                        config.minInsyncReplicas());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException(
                            "cannot create topic " + topic + " at " + config.bootstrapServers() + ": " + e.getCause(),
                            e.getCause());
                }
            } catch (TimeoutException e) {
                throw new IllegalStateException(
                        "Kafka at " + config.bootstrapServers() + " did not answer within " + timeout
                                + " while creating topic " + topic,
                        e);
            }
        }
        while (!served(Set.of(config.topic(), config.deadLetterTopic()))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topics " + config.topic() + " and " + config.deadLetterTopic()
                        + " are not served by " + config.bootstrapServers() + " within " + timeout);
            }
            Thread.sleep(100);
        }
    }

    private boolean served(Set<String> topics) {
        Map<String, TopicDescription> d = answer(admin.describeTopics(topics).allTopicNames(), 5);
        if (d == null) {
            return false;
        }
        for (TopicDescription td : d.values()) {
            for (TopicPartitionInfo p : td.partitions()) {
                if (p.leader() == null || p.leader().isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }

    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile boolean lastReachable;
    private volatile long lastProbe = System.nanoTime() - 2_000_000_000L;

    /**
     * Whether the broker answered lately (for /readyz): a cluster description within two seconds, asked at most
     * once a second by one caller at a time; every other caller gets the last answer at once, so a burst of probes
     * while Kafka is down holds no threads.
     */
    public boolean brokerReachable() {
        long now = System.nanoTime();
        if (now - lastProbe < 1_000_000_000L || !probing.compareAndSet(false, true)) {
            return lastReachable;
        }
        try {
            lastReachable = answer(admin.describeCluster().nodes(), 2) != null;
            lastProbe = System.nanoTime();
            return lastReachable;
        } finally {
            probing.set(false);
        }
    }

    /** The admin call's result within {@code seconds}, or null when it failed or took longer. */
    private static <T> T answer(KafkaFuture<T> call, int seconds) {
        try {
            return call.get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
