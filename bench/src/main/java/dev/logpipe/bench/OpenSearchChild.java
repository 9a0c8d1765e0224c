package dev.logpipe.bench;

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
 * The {@code bench-opensearch} module's {@code OpenSearchNode} in a child JVM of its own class path (OpenSearch and
 * its dependencies never share one with logpipe), HTTP on a free port of 127.0.0.1. Its standard output and error go
 * to files in its home. {@link #close} stops it with SIGTERM (the node closes its indices), then SIGKILL after 30 s;
 * idempotent.
 */
final class OpenSearchChild implements AutoCloseable {
    static final String MAIN = "dev.logpipe.bench.opensearch.OpenSearchNode";
    /** Where the root build puts the module: its jar, then {@code target/lib/*} (maven-dependency-plugin). */
    static final String DEFAULT_CLASS_PATH =
            "bench-opensearch/target/logpipe-bench-opensearch.jar:bench-opensearch/target/lib/*";

    private final Process process;
    private final Path home;
    private final int port;

    private OpenSearchChild(Process process, Path home, int port) {
        this.process = process;
        this.home = home;
        this.port = port;
    }

    /** Starts the node and waits (up to {@code timeout}) until its cluster is green over HTTP. */
    static OpenSearchChild start(Path home, String classPath, List<String> jvmOpts, Duration timeout)
            throws IOException, InterruptedException {
        if (!Files.isRegularFile(Path.of(classPath.split(":")[0]))) {
            throw new IllegalArgumentException("no " + classPath.split(":")[0]
                    + ": build it first (mvn -B -ntp -o -q package -pl bench,bench-opensearch -am -DskipTests)"
                    + " or pass --os-classpath");
        }
        Files.createDirectories(home);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOpts);
        cmd.addAll(List.of("-cp", classPath, MAIN, "--home", home.toString(), "--port", Integer.toString(port)));
        Process p = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(home.resolve("node.stdout").toFile())
                .redirectError(home.resolve("node.stderr").toFile())
                .start();
        OpenSearchChild child = new OpenSearchChild(p, home, port);
        try {
            child.awaitGreen(timeout);
        } catch (IOException | RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
        return child;
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    private void awaitGreen(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest health = HttpRequest.newBuilder(
                        URI.create(base() + "/_cluster/health?wait_for_status=green&timeout=5s"))
                .build();
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
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("OpenSearch not green within " + timeout + "; see " + home);
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
