package dev.logpipe.broker;

import java.util.Properties;

/**
 * The Kafka broker settings of a single-node KRaft broker on 127.0.0.1: one process that is both broker and
 * controller, internal topics with one replica and one partition, and small buffers, because it shares a
 * laptop-sized JVM with the rest of logpipe.
 */
final class KafkaSettings {
    static final int NODE_ID = 1;
    static final String CONTROLLER_LISTENER = "CONTROLLER";
    static final String CLIENT_LISTENER = "PLAINTEXT";

    private KafkaSettings() {}

    /** {@code config} must have its ports resolved (non-zero). */
    static Properties of(BrokerConfig config) {
        if (config.port() == 0 || config.controllerPort() == 0) {
            throw new IllegalArgumentException("ports must be resolved before the broker starts, was " + config);
        }
        String host = "127.0.0.1";
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + host + ":" + config.controllerPort());
        p.put(
                "listeners",
                CLIENT_LISTENER + "://" + host + ":" + config.port() + "," + CONTROLLER_LISTENER + "://" + host + ":"
                        + config.controllerPort());
        p.put("advertised.listeners", CLIENT_LISTENER + "://" + host + ":" + config.port());
        p.put("listener.security.protocol.map", CLIENT_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", CLIENT_LISTENER);
        p.put("log.dirs", config.logDir().toString());
        p.put("metadata.log.dir", config.logDir().toString());

        // Topics are created on purpose, with a partition count, and waited for (see Topics).
        p.put("auto.create.topics.enable", "false");
        // Defaults to 128 MiB, allocated at start: small heaps die before the broker is up.
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        // One node: every internal topic has one replica; 50 offsets partitions make the first group join slow.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("share.coordinator.state.topic.num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("unclean.leader.election.enable", "false");
        // No one else will join: do not hold the first rebalance back for three seconds.
        p.put("group.initial.rebalance.delay.ms", "0");
        // Fewer threads than a production broker sized for many disks and cores.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("background.threads", "4");

        p.putAll(config.kafkaOverrides());
        return p;
    }
}
