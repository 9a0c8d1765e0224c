package dev.logpipe.server.standalone;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What {@code logpipe standalone} runs with: its one HTTP port, the data directory, the embedded broker's ports,
 * whether the demo runs, how long the warm-up before ready may take ({@link Duration#ZERO}: none), and the role sections of the config file ({@code collector:}, {@code indexer:},
 * {@code query:}), each laid over the standalone defaults and then validated by that role's own loader, and the
 * one limit on failed authentications of the port ({@code auth:}), shared by ingest, query, whoami and admin.
 */
public record StandaloneConfig(
        String host,
        int port,
        Path dataDir,
        int brokerPort,
        int brokerControllerPort,
        boolean demo,
        Duration warmUp,
        ObjectNode collector,
        ObjectNode indexer,
        ObjectNode query,
        AuthFailures.Policy auth) {
    public StandaloneConfig {
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(warmUp, "warmUp");
        collector = collector.deepCopy();
        indexer = indexer.deepCopy();
        query = query.deepCopy();
    }

    public Path brokerDir() {
        return dataDir.resolve("broker");
    }

    public Path indexDir() {
        return dataDir.resolve("index");
    }

    public StandaloneConfig withPorts(int newPort, int newBrokerPort) {
        return new StandaloneConfig(
                host,
                newPort,
                dataDir,
                newBrokerPort,
                brokerControllerPort,
                demo,
                warmUp,
                collector,
                indexer,
                query,
                auth);
    }
}
