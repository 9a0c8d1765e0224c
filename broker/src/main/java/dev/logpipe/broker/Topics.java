package dev.logpipe.broker;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a topic and returns only once every partition of it is served. Kafka acknowledges a CreateTopics request
 * before the partitions' leaders are ready, and an idempotent producer that writes in that window can lose records
 * without an error (KAFKA-15591, fixed in Kafka 4.5): so this polls ListOffsets for every partition until it
 * succeeds. Works against any cluster, not only the embedded broker.
 */
public final class Topics {
    private static final Logger log = LoggerFactory.getLogger(Topics.class);
    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(2);

    private Topics() {}

    /**
     * Creates {@code name} unless it exists, then waits until each of its partitions answers ListOffsets. Idempotent:
     * an existing topic with the same partition count is only waited for.
     *
     * @throws IllegalStateException the topic exists with another partition count
     * @throws IOException           the broker refused the topic, or its partitions were not served within
     *                               {@code timeout}
     */
    public static void create(
            Admin admin,
            String name,
            int partitions,
            short replicationFactor,
            Map<String, String> configs,
            Duration timeout)
            throws IOException, InterruptedException {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("topic name: must not be blank, was \"" + name + "\"");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replicationFactor: must be >= 1, was " + replicationFactor);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        NewTopic topic = new NewTopic(name, partitions, replicationFactor).configs(Map.copyOf(configs));
        try {
            admin.createTopics(List.of(topic)).all().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            log.debug("created topic {} with {} partitions", name, partitions);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IOException(
                        "cannot create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
            }
            int existing = describe(admin, name, deadline).partitions().size();
            if (existing != partitions) {
                throw new IllegalStateException("topic " + name + " exists with " + existing + " partitions, not the "
                        + partitions + " asked for");
            }
        } catch (TimeoutException e) {
            throw new IOException("topic " + name + " was not created within " + timeout, e);
        }
        awaitServed(admin, name, partitions, deadline, timeout);
    }

    private static void awaitServed(Admin admin, String name, int partitions, long deadline, Duration timeout)
            throws IOException, InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        Optional<Throwable> last = Optional.empty();
        while (true) {
            long remaining = remainingMillis(deadline);
            int attempt = (int) Math.max(1, Math.min(remaining, ATTEMPT_TIMEOUT.toMillis()));
            try {
                admin.listOffsets(latest, new ListOffsetsOptions().timeoutMs(attempt))
                        .all()
                        .get(attempt + 1000L, TimeUnit.MILLISECONDS);
                return;
            } catch (ExecutionException e) {
                last = Optional.of(e.getCause());
            } catch (TimeoutException e) {
                last = Optional.of(e);
            }
            if (remainingMillis(deadline) <= POLL.toMillis()) {
                IOException failure = new IOException("the " + partitions + " partitions of topic " + name
                        + " were not all served within " + timeout);
                last.ifPresent(failure::initCause);
                throw failure;
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static TopicDescription describe(Admin admin, String name, long deadline)
            throws IOException, InterruptedException {
        try {
            return admin.describeTopics(List.of(name))
                    .allTopicNames()
                    .get(remainingMillis(deadline), TimeUnit.MILLISECONDS)
                    .get(name);
        } catch (ExecutionException e) {
            throw new IOException(
                    "cannot describe topic " + name + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("cannot describe topic " + name + " in time", e);
        }
    }

    private static long remainingMillis(long deadline) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }
}
