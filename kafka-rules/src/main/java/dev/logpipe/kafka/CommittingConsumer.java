package dev.logpipe.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Consumer settings for a reader that commits offsets itself, only after what it read is durable downstream (the
 * indexer's index-then-commit): no auto-commit, only committed transactional data, and a new group starts at the
 * earliest offset so nothing retained is skipped. The operator's {@code properties} are the base; these keys win.
 */
public final class CommittingConsumer {
    private CommittingConsumer() {}

    public static Map<String, Object> settings(
            Map<String, String> properties, String bootstrapServers, String groupId, Map<String, Object> tuning) {
        Map<String, Object> p = new HashMap<>(properties);
        p.putAll(tuning);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return p;
    }
}
