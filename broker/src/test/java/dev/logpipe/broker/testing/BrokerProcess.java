package dev.logpipe.broker.testing;

import dev.logpipe.broker.BrokerConfig;
import dev.logpipe.broker.BrokerMain;
import dev.logpipe.broker.Topics;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The broker in a child JVM ({@link BrokerMain}, launched by testkit's {@link ChildJvm} with this JVM's class path),
 * for tests and benchmarks that crash the broker: {@link #kill} is {@code kill -9}, {@link #stop} is SIGTERM (a clean
 * shutdown), and {@link #restart} starts it again on the same data directory and ports. Each start waits for the
 * child's ready line. The child's standard output and error go to {@code broker-N.stdout}/{@code .stderr} in the data
 * directory (N counts the starts), so no pipe can fill up and every run can be read afterwards.
 *
 * <p>The child stops when this JVM exits (a shutdown hook, and the child watches this process's pid), so a test JVM
 * that crashes leaves no broker behind. Not thread-safe: one test drives it.
 */
public final class BrokerProcess implements AutoCloseable {
    /** A broker needs more heap than {@link ChildJvm#FAST_START_FLAGS} gives; these come after them and win. */
    public static final List<String> JVM_FLAGS = List.of("-Xmx256m");

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

    private final Path dataDir;
    private final int port;
    private final int controllerPort;
    private final Thread shutdownHook = new Thread(this::stopIfAlive, "logpipe-broker-process-hook");
    private ChildJvm child;
    private int starts;

    private BrokerProcess(Path dataDir, int port, int controllerPort) {
        this.dataDir = dataDir;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** Starts a broker child JVM on free ports; returns once it serves clients. */
    public static BrokerProcess start(Path dataDir) throws IOException {
        int port = FreePort.pick();
        int controllerPort = FreePort.pick();
        while (controllerPort == port) {
            controllerPort = FreePort.pick();
        }
        return start(dataDir, port, controllerPort);
    }

    /** Starts a broker child JVM on the given ports (not 0: a restart must find the same ones). */
    public static BrokerProcess start(Path dataDir, int port, int controllerPort) throws IOException {
        BrokerConfig.of(dataDir, port, controllerPort); // validates
        if (port == 0 || controllerPort == 0) {
            throw new IllegalArgumentException(
                    "ports: a child broker restarts on the same ports, so 0 is not allowed, was " + port + "/"
                            + controllerPort);
        }
        Files.createDirectories(dataDir);
        BrokerProcess broker = new BrokerProcess(dataDir.toAbsolutePath(), port, controllerPort);
        Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
        try {
            broker.launch();
        } catch (RuntimeException | AssertionError e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    public long pid() {
        return child.pid();
    }

    public boolean isAlive() {
        return child.isAlive();
    }

    /** What the current (or last) child wrote to standard error. */
    public String stderr() {
        return child.stderr();
    }

    /** What the current (or last) child wrote to standard output: its ready line and nothing else. */
    public String stdout() {
        return child.stdout();
    }

    /** Creates a topic with one replica and waits until its partitions are served (see {@link Topics}). */
    public void createTopic(String name, int partitions, Map<String, String> configs)
            throws IOException, InterruptedException {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                "logpipe-broker-topics"))) {
            Topics.create(admin, name, partitions, (short) 1, configs, TOPIC_TIMEOUT);
        }
    }

    /** SIGTERM: the broker shuts down cleanly. Waits for the exit and returns its code (143 = 128 + SIGTERM). */
    public int stop() {
        return child.terminate(STOP_TIMEOUT);
    }

    /** SIGKILL ({@code kill -9}): the broker gets no chance to flush or close anything. Returns 137. */
    public int kill() {
        return child.kill();
    }

    /** Stops the child if it is alive (SIGTERM), then starts it again on the same data directory and ports. */
    public void restart() {
        if (child.isAlive()) {
            stop();
        }
        launch();
    }

    /** Stops a child that is still alive (SIGTERM, then SIGKILL if it does not exit in time). Idempotent. */
    @Override
    public void close() {
        stopIfAlive();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // the JVM is exiting and runs the hook itself
        }
    }

    @Override
    public String toString() {
        return "BrokerProcess[" + bootstrapServers() + ", " + dataDir + (child == null ? "" : ", pid " + pid()) + "]";
    }

    private void launch() {
        starts++;
        child = ChildJvm.start(
                dataDir,
                "broker-" + starts,
                BrokerMain.class.getName(),
                JVM_FLAGS,
                List.of(
                        "--port",
                        Integer.toString(port),
                        "--controller-port",
                        Integer.toString(controllerPort),
                        "--data",
                        dataDir.toString(),
                        "--parent-pid",
                        Long.toString(ProcessHandle.current().pid())));
        try {
            child.awaitStdout(BrokerMain.READY_PREFIX + bootstrapServers() + "\n", READY_TIMEOUT);
        } catch (AssertionError notReady) {
            child.close();
            throw new AssertionError(
                    "broker child on " + bootstrapServers() + " was not ready: " + notReady.getMessage(), notReady);
        }
    }

    private void stopIfAlive() {
        ChildJvm c = child;
        if (c == null || !c.isAlive()) {
            return;
        }
        try {
            c.terminate(STOP_TIMEOUT);
        } catch (AssertionError stillAlive) {
            c.kill();
        }
    }
}
