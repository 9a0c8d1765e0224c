package dev.logpipe.broker;

import java.io.IOException;
import java.net.BindException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka broker (broker and controller in one, node id 1) running in this JVM on
 * 127.0.0.1. {@link #start} formats the data directory on first use and keeps its cluster id on every later start,
 * so a restart on the same directory finds its topics and records.
 *
 * <p>Kafka's threads are not daemons: a broker that is never closed keeps the JVM alive. {@link #close} stops it
 * (idempotent, thread-safe); a shutdown hook closes it on {@code System.exit}, SIGTERM and Ctrl-C. A {@code main}
 * that ends by throwing does not start the JVM's shutdown, so it must close the broker itself
 * (try-with-resources).
 */
public final class EmbeddedBroker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedBroker.class);
    /** Tries with other free ports when one picked for a port-0 config was taken before the broker bound it. */
    private static final int PORT_ATTEMPTS = 3;

    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

    private final BrokerConfig config;
    private final String clusterId;
    private final KafkaRaftServer server;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedBroker(BrokerConfig config, String clusterId, KafkaRaftServer server) {
        this.config = config;
        this.clusterId = clusterId;
        this.server = server;
        this.shutdownHook = new Thread(this::close, "logpipe-broker-shutdown-hook");
    }

    /**
     * Formats {@code config.dataDir()} if needed and starts the broker; returns once it serves clients.
     *
     * @throws IOException              the data directory cannot be formatted or is in use by another broker, or a
     *                                  port is taken, or Kafka failed to start; nothing is left running
     * @throws IllegalArgumentException Kafka rejected a setting of {@code config.kafkaOverrides()}
     */
    public static EmbeddedBroker start(BrokerConfig config) throws IOException {
        long began = System.nanoTime();
        BrokerLogging.quietKafka();
        String clusterId = StorageFormat.ensureFormatted(config.logDir());
        for (int attempt = 1; ; attempt++) {
            BrokerConfig resolved = resolvePorts(config);
            try {
                EmbeddedBroker broker = startOn(resolved, clusterId);
                log.info(
                        "broker started in {} ms: bootstrap={} cluster={} data={}",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
                        broker.bootstrapServers(),
                        clusterId,
                        resolved.dataDir());
                return broker;
            } catch (PortTakenException e) {
                boolean picked = (config.port() == 0 && e.port == resolved.port())
                        || (config.controllerPort() == 0 && e.port == resolved.controllerPort());
                if (!picked || attempt == PORT_ATTEMPTS) {
                    throw e.failure;
                }
                log.info("a picked port was taken before the broker bound it, trying others ({})", e.getMessage());
            }
        }
    }

    private static BrokerConfig resolvePorts(BrokerConfig config) throws IOException {
        int[] free = FreePort.pickTwo(); // distinct; a picked port must not equal the other, given one either
        int port = config.port() != 0 ? config.port() : free[0] != config.controllerPort() ? free[0] : free[1];
        int controllerPort =
                config.controllerPort() != 0 ? config.controllerPort() : free[1] != port ? free[1] : free[0];
        return config.withPorts(port, controllerPort);
    }

    private static EmbeddedBroker startOn(BrokerConfig config, String clusterId)
            throws IOException, PortTakenException {
        KafkaRaftServer server;
        try {
            server = new KafkaRaftServer(new KafkaConfig(KafkaSettings.of(config), false), Time.SYSTEM);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("kafkaOverrides: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IOException("cannot start a broker on " + config.dataDir() + ": " + e.getMessage(), e);
        }
        EmbeddedBroker broker = new EmbeddedBroker(config, clusterId, server);
        Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
        try {
            server.startup();
        } catch (RuntimeException e) {
            broker.close();
            IOException failure = new IOException(
                    "broker on " + config.dataDir() + " (port " + config.port() + ", controller port "
                            + config.controllerPort() + ") failed to start: " + e.getMessage(),
                    e);
            int taken = takenPort(e, config);
            if (taken != 0) {
                throw new PortTakenException(failure, taken);
            }
            throw failure;
        }
        return broker;
    }

    /** {@code 127.0.0.1:port}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + config.port();
    }

    /** The config this broker runs with, ports resolved: start a broker with it again to restart on the same ports. */
    public BrokerConfig config() {
        return config;
    }

    public int port() {
        return config.port();
    }

    /** The KRaft cluster id stored in the data directory; the same on every start of the same directory. */
    public String clusterId() {
        return clusterId;
    }

    /**
     * Creates a topic and returns once every one of its partitions is served, so an idempotent producer may write
     * to it at once (see {@link Topics}). Idempotent: an existing topic with the same partition count is fine.
     *
     * @param replicationFactor must be 1: this broker is the only replica there is
     * @throws IllegalStateException the topic exists with another partition count, or the broker is closed
     * @throws IOException           the broker refused the topic or did not serve it within 30 s
     */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs)
            throws IOException, InterruptedException {
        if (replicationFactor != 1) {
            throw new IllegalArgumentException(
                    "replicationFactor: a single-node broker holds exactly one replica, was " + replicationFactor);
        }
        if (closed.get()) {
            throw new IllegalStateException("broker on " + config.dataDir() + " is closed");
        }
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                "logpipe-broker-topics"))) {
            Topics.create(admin, name, partitions, (short) replicationFactor, configs, TOPIC_TIMEOUT);
        }
    }

    /**
     * Takes the broker off the JVM's shutdown: from now on the caller closes it on SIGTERM, after whatever still
     * uses it (standalone stops intake, drains and commits first, the broker last). Idempotent.
     */
    public void closeOnlyExplicitly() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // the JVM is already exiting: the hook runs and finds the broker closed or closes it
        }
    }

    /** Blocks until the broker has stopped: after {@link #close}, or when Kafka shut itself down. */
    public void awaitStopped() {
        server.awaitShutdown();
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Stops the broker (controlled shutdown, logs flushed and closed) and waits until it has. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long started = System.nanoTime();
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            if (Thread.currentThread() != shutdownHook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                } catch (IllegalStateException shutdownInProgress) {
                    // the JVM is exiting; the hook thread finds the broker closed
                }
            }
        }
        log.info(
                "broker on {} stopped in {} ms",
                config.dataDir(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    @Override
    public String toString() {
        return "EmbeddedBroker[" + bootstrapServers() + ", cluster " + clusterId + ", " + config.dataDir() + "]";
    }

    /** Which of the config's ports a failed start could not bind ("failed to bind to 127.0.0.1:PORT"), or 0. */
    private static int takenPort(Throwable e, BrokerConfig config) {
        boolean bind = false;
        String messages = "";
        for (Throwable t = e; t != null; t = t.getCause()) {
            bind |= t instanceof BindException;
            messages += " " + t.getMessage();
        }
        if (!bind) {
            return 0;
        }
        for (int port : new int[] {config.port(), config.controllerPort()}) {
            if (messages.contains("127.0.0.1:" + port + ":")) {
                return port;
            }
        }
        return 0;
    }

    /** A start that failed because a port was taken; {@link #start} may try other ports. */
    private static final class PortTakenException extends Exception {
        private static final long serialVersionUID = 1L;
        final IOException failure;
        final int port;

        PortTakenException(IOException failure, int port) {
            super(failure.getMessage(), failure, false, false);
            this.failure = failure;
            this.port = port;
        }
    }
}
