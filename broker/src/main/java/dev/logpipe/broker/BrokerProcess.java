package dev.logpipe.broker;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The broker in a child JVM ({@link BrokerMain}) started with this JVM's class path, for tests that crash the
 * broker: {@link #kill} is {@code kill -9}, {@link #stop} is SIGTERM (a clean shutdown), and {@link #restart} starts
 * it again on the same data directory and ports. Each start waits for the child's ready line. The child's standard
 * output and error go to {@code broker-N.stdout}/{@code .stderr} in the data directory (N counts the starts), so no
 * pipe can fill up and every run can be read afterwards.
 *
 * <p>The child stops when this JVM exits (a shutdown hook, and the child watches this process's pid), so a test JVM
 * that crashes leaves no broker behind. Not thread-safe: one test drives it.
 */
public final class BrokerProcess implements AutoCloseable {
    /** Flags for a short-lived broker JVM: C1 only and the serial collector start fastest on a small machine. */
    public static final List<String> JVM_FLAGS =
            List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

    private final Path dataDir;
    private final int port;
    private final int controllerPort;
    private final Thread shutdownHook = new Thread(this::destroyOnExit, "logpipe-broker-process-hook");
    private Process process;
    private int starts;

    private BrokerProcess(Path dataDir, int port, int controllerPort) {
        this.dataDir = dataDir;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** Starts a broker child JVM on free ports; returns once it serves clients. */
    public static BrokerProcess start(Path dataDir) throws IOException {
        int[] ports = FreePort.pickTwo();
        return start(dataDir, ports[0], ports[1]);
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
        } catch (IOException | RuntimeException e) {
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
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** What the current (or last) child wrote to standard error. */
    public String stderr() {
        return read(output(starts, "stderr"));
    }

    /** What the current (or last) child wrote to standard output: its ready line and nothing else. */
    public String stdout() {
        return read(output(starts, "stdout"));
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
    public int stop() throws IOException {
        process.destroy();
        return awaitExit(STOP_TIMEOUT);
    }

    /** SIGKILL ({@code kill -9}): the broker gets no chance to flush or close anything. Returns 137. */
    public int kill() throws IOException {
        process.destroyForcibly();
        return awaitExit(Duration.ofSeconds(10));
    }

    /** Stops the child if it is alive (SIGTERM), then starts it again on the same data directory and ports. */
    public void restart() throws IOException {
        if (process.isAlive()) {
            stop();
        }
        launch();
    }

    /** Stops a child that is still alive: SIGTERM, then SIGKILL if it does not exit in time. Idempotent. */
    private static String absoluteClassPath() {
        StringBuilder b = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (b.length() > 0) {
                b.append(File.pathSeparatorChar);
            }
            b.append(entry.isEmpty() ? entry : Path.of(entry).toAbsolutePath().toString());
        }
        return b.toString();
    }

    @Override
    public void close() {
        destroyOnExit();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // the JVM is exiting and runs the hook itself
        }
    }

    @Override
    public String toString() {
        return "BrokerProcess[" + bootstrapServers() + ", " + dataDir + (process == null ? "" : ", pid " + pid()) + "]";
    }

    private void launch() throws IOException {
        starts++;
        Path out = output(starts, "stdout");
        Path err = output(starts, "stderr");
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("cannot tell which java binary runs this JVM")));
        command.addAll(JVM_FLAGS);
        command.add("-cp");
        command.add(absoluteClassPath()); // the child runs in its data directory: relative entries would break
        command.add(BrokerMain.class.getName());
        command.addAll(List.of(
                "--port",
                Integer.toString(port),
                "--controller-port",
                Integer.toString(controllerPort),
                "--data",
                dataDir.toString(),
                "--parent-pid",
                Long.toString(ProcessHandle.current().pid())));
        process = new ProcessBuilder(command)
                .directory(dataDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        awaitReady(out, err);
    }

    private void awaitReady(Path out, Path err) throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String expected = BrokerMain.READY_PREFIX + bootstrapServers();
        while (true) {
            if (read(out).lines().anyMatch(expected::equals)) {
                return;
            }
            if (!process.isAlive()) {
                throw new IOException("broker child exited with " + process.exitValue() + " before it was ready; "
                        + "its stderr (" + err + "):\n" + tail(read(err)));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IOException("broker child was not ready within " + READY_TIMEOUT + "; its stderr (" + err
                        + "):\n" + tail(read(err)));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IOException("interrupted while waiting for the broker child", e);
            }
        }
    }

    private int awaitExit(Duration timeout) throws IOException {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("broker child pid " + process.pid() + " did not exit within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the broker child to exit", e);
        }
        return process.exitValue();
    }

    private void destroyOnExit() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    private Path output(int start, String stream) {
        return dataDir.resolve("broker-" + start + "." + stream);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static String tail(String text) {
        int max = 8000;
        return text.length() <= max ? text : "...\n" + text.substring(text.length() - max);
    }
}
