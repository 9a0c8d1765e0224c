package dev.logpipe.indexer.internal.consume;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits, before the indexer subscribes, until its topics exist. The indexer never creates them: the collector does at
 * its start, with the partitions, replication and {@code min.insync.replicas} of its configuration. While one is
 * missing, a WARN names it (at once, then every {@code every}) and {@code /readyz} stays 503.
 */
final class TopicWait {
    private static final Logger log = LoggerFactory.getLogger(TopicWait.class);
    private final String bootstrap;
    private final Map<String, String> properties;
    private final Duration every;

    TopicWait(String bootstrap, Map<String, String> properties, Duration every) {
        this.bootstrap = bootstrap;
        this.properties = properties;
        this.every = every;
    }

    /** Returns when every topic exists; false when {@code running} turned false first. */
    boolean await(List<String> topics, BooleanSupplier running) throws InterruptedException {
        Map<String, Object> p = new HashMap<>(properties);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "logpipe-indexer-topics");
        try (Admin admin = Admin.create(p)) {
            long lastWarn = 0;
            boolean warned = false;
            while (running.getAsBoolean()) {
                List<String> missing = missing(admin, topics);
                if (missing != null && missing.isEmpty()) {
                    if (warned) {
                        log.info("topics {} exist now; consuming", topics);
                    }
                    return true;
                }
                long now = System.nanoTime();
                if (!warned || now - lastWarn >= every.toNanos()) {
                    warned = true;
                    lastWarn = now;
                    if (missing == null) {
                        log.warn("waiting for Kafka at {}: it did not list its topics (is it up?)", bootstrap);
                    } else {
                        log.warn(
                                "waiting for topic{} {} at {}: not created yet (the collector creates them at its "
                                        + "start; or create them with kafka-topics.sh --create)",
                                missing.size() == 1 ? "" : "s",
                                String.join(", ", missing),
                                bootstrap);
                    }
                }
                Thread.sleep(200);
            }
            return false;
        }
    }

    /** The topics not listed by the broker, or null when it did not answer. */
    private static List<String> missing(Admin admin, List<String> topics) throws InterruptedException {
        try {
            Set<String> names = admin.listTopics().names().get(5, TimeUnit.SECONDS);
            List<String> out = new ArrayList<>();
            for (String t : topics) {
                if (!names.contains(t)) {
                    out.add(t);
                }
            }
            return out;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }
}
