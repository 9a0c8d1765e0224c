package dev.logpipe.broker;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the embedded broker keeps its data and which ports it listens on (always 127.0.0.1). Port 0 means
 * "pick a free port before starting"; {@link EmbeddedBroker#config()} reports the ports actually bound, so a
 * restart on the same data directory can ask for the same ones.
 *
 * @param dataDir        the broker's directory; Kafka's log directory is {@code dataDir/kafka}
 * @param port           the PLAINTEXT listener clients bootstrap from, or 0
 * @param controllerPort the KRaft controller listener, or 0
 * @param kafkaOverrides extra Kafka broker settings (for example {@code log.retention.ms}); the settings that
 *                       make this a single-node broker on 127.0.0.1 ({@link #OWNED_KEYS}) cannot be overridden
 */
public record BrokerConfig(Path dataDir, int port, int controllerPort, Map<String, String> kafkaOverrides) {
    /** Settings the broker derives from this record; overriding them would make another kind of broker. */
    public static final Set<String> OWNED_KEYS = Set.of(
            "process.roles",
            "node.id",
            "controller.quorum.voters",
            "controller.quorum.bootstrap.servers",
            "listeners",
            "advertised.listeners",
            "controller.listener.names",
            "inter.broker.listener.name",
            "listener.security.protocol.map",
            "log.dirs",
            "log.dir",
            "metadata.log.dir");

    public BrokerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        checkPort("port", port);
        checkPort("controllerPort", controllerPort);
        if (port != 0 && port == controllerPort) {
            throw new IllegalArgumentException("port and controllerPort must differ, both were " + port);
        }
        kafkaOverrides = Map.copyOf(Objects.requireNonNull(kafkaOverrides, "kafkaOverrides"));
        for (String key : kafkaOverrides.keySet()) {
            if (OWNED_KEYS.contains(key)) {
                throw new IllegalArgumentException("kafkaOverrides: " + key + " is set by the embedded broker itself");
            }
        }
    }

    /** A broker on {@code dataDir} with free ports picked at start and no overrides. */
    public static BrokerConfig onFreePorts(Path dataDir) {
        return new BrokerConfig(dataDir, 0, 0, Map.of());
    }

    public static BrokerConfig of(Path dataDir, int port, int controllerPort) {
        return new BrokerConfig(dataDir, port, controllerPort, Map.of());
    }

    public BrokerConfig withPorts(int newPort, int newControllerPort) {
        return new BrokerConfig(dataDir, newPort, newControllerPort, kafkaOverrides);
    }

    public BrokerConfig withOverride(String key, String value) {
        Map<String, String> copy = new TreeMap<>(kafkaOverrides);
        copy.put(key, value);
        return new BrokerConfig(dataDir, port, controllerPort, copy);
    }

    /** Kafka's log directory, which also holds the KRaft metadata log and {@code meta.properties}. */
    public Path logDir() {
        return dataDir.resolve("kafka");
    }

    private static void checkPort(String name, int value) {
        if (value < 0 || value > 65535) {
            throw new IllegalArgumentException(name + ": must be 0 (pick a free one) or 1-65535, was " + value);
        }
    }
}
