package dev.logpipe.opensearch.node;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link OpenSearchNode} in a child JVM of its own class path (OpenSearch and its dependencies never share one with
 * logpipe), HTTP on a free port of 127.0.0.1: the real OpenSearch of the OpenSearch store's tests and of bench's
 * side-by-side. JDK classes only, so a caller depends on this module with every transitive dependency excluded. Its
 * standard output and error go to files in its home. {@link #close} stops it with SIGTERM (the node closes its
 * indices), then SIGKILL after 30 s; idempotent. {@link #kill} is {@code kill -9}; {@link #restart} starts the node
 * again on the same home (its data) and port, as an outage of the cluster looks to its clients.
 */
public final class OpenSearchProcess implements AutoCloseable {
    static final String MAIN = "dev.logpipe.opensearch.node.OpenSearchNode";
    /** Where the root build puts the module, from the repository's root: its jar, then {@code target/lib/*}. */
    public static final String DEFAULT_CLASS_PATH =
            "opensearch-node/target/logpipe-opensearch-node.jar:opensearch-node/target/lib/*";

    private final Process process;
    private final Path home;
    private final String classPath;
    private final List<String> jvmOpts;
    private final int port;

    private OpenSearchProcess(Process process, Path home, String classPath, List<String> jvmOpts, int port) {
        this.process = process;
        this.home = home;
        this.classPath = classPath;
        this.jvmOpts = List.copyOf(jvmOpts);
        this.port = port;
    }

    /**
     * The node's class path as the build left it: this module's classes (or jar) and its {@code target/lib/*} (copied
     * by maven-dependency-plugin before any later module's tests run), found beside this class when it was loaded from
     * the module's {@code target}, else in {@code ../opensearch-node/target} or {@code opensearch-node/target} of the
     * working directory (a module's tests run from its directory; this class may then come from the local repository).
     */
    public static String classPathOfThisBuild() {
        List<Path> targets = new ArrayList<>();
        try {
            Path here = Path.of(OpenSearchProcess.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            targets.add(here.getParent()); // target/classes or target/logpipe-opensearch-node.jar
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // not loaded from a file: look beside the working directory
        }
        targets.add(Path.of("..", "opensearch-node", "target").toAbsolutePath().normalize());
        targets.add(Path.of("opensearch-node", "target").toAbsolutePath().normalize());
        for (Path target : targets) {
            Path lib = target.resolve("lib");
            Path classes = target.resolve("classes");
            Path jar = target.resolve("logpipe-opensearch-node.jar");
            if (Files.isDirectory(lib) && (Files.isDirectory(classes) || Files.isRegularFile(jar))) {
                return (Files.isDirectory(classes) ? classes : jar) + ":" + lib + "/*";
            }
        }
        throw new IllegalStateException("no OpenSearch node class path in " + targets
                + ": build the opensearch-node module first (`mvn -pl opensearch-node process-classes`)");
    }

    /** Starts the node and waits (up to {@code timeout}) until its cluster is green over HTTP. */
    public static OpenSearchProcess start(Path home, String classPath, List<String> jvmOpts, Duration timeout)
            throws IOException, InterruptedException {
        if (!Files.exists(Path.of(classPath.split(":")[0]))) {
            throw new IllegalArgumentException("no " + classPath.split(":")[0]
                    + ": build it first (mvn -B -ntp -o -q package -pl bench,opensearch-node -am -DskipTests)"
                    + " or pass --os-classpath");
        }
        Files.createDirectories(home);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        return start(home, classPath, jvmOpts, port, timeout);
    }

    private static OpenSearchProcess start(
            Path home, String classPath, List<String> jvmOpts, int port, Duration timeout)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOpts);
        cmd.addAll(List.of("-cp", classPath, MAIN, "--home", home.toString(), "--port", Integer.toString(port)));
        Process p = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("node.stdout").toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        home.resolve("node.stderr").toFile()))
                .start();
        OpenSearchProcess child = new OpenSearchProcess(p, home, classPath, jvmOpts, port);
        try {
            child.awaitGreen(timeout);
        } catch (IOException | RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
        return child;
    }

    /** The node's HTTP address, {@code http://127.0.0.1:<port>}. */
    public String base() {
        return "http://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** {@code kill -9}: the node gets no chance to close anything; waits until it is gone. Idempotent. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /**
     * A new node on this one's home (its data and translog) and port, once this one is stopped ({@link #kill} or
     * {@link #close}); waits until the cluster is green again, its indices recovered.
     */
    public OpenSearchProcess restart(Duration timeout) throws IOException, InterruptedException {
        if (process.isAlive()) {
            throw new IllegalStateException("the node on port " + port + " still runs: stop it before restarting it");
        }
        return start(home, classPath, jvmOpts, port, timeout);
    }

    private void awaitGreen(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest health = HttpRequest.newBuilder(
                        URI.create(base() + "/_cluster/health?wait_for_status=green&timeout=5s"))
                .build();
        String last = "no answer";
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("OpenSearch exited with " + process.exitValue() + "; its stderr:\n"
                        + Files.readString(home.resolve("node.stderr")));
            }
            try {
                HttpResponse<String> r = http.send(health, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"status\":\"green\"")) {
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "OpenSearch not green within " + timeout + " (its health: " + last + "); see " + home);
            }
            Thread.sleep(250);
        }
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
