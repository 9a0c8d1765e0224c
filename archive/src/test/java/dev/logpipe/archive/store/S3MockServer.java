package dev.logpipe.archive.store;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Adobe S3Mock (a real S3 API server) in a child JVM, from the executable jar the build copies to
 * {@code target/s3mock/}: one per test class, on free ports, its objects under a directory of the test's.
 */
final class S3MockServer implements AutoCloseable {
    static final String BUCKET = "archive";

    private final Process process;
    private final URI endpoint;

    private S3MockServer(Process process, URI endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    static S3MockServer start(Path dir) throws IOException {
        Path jar = Path.of("target/s3mock/s3mock-exec.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run the tests through Maven (process-test-classes)");
        }
        int http = freePort();
        int https = freePort();
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path root = Files.createDirectories(dir.resolve("s3mock-root"));
        Process p = new ProcessBuilder(List.of(
                        java,
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xmx256m",
                        "-jar",
                        jar.toString(),
                        "--server.port=" + https,
                        "--com.adobe.testing.s3mock.httpPort=" + http,
                        "--com.adobe.testing.s3mock.store.root=" + root,
                        "--com.adobe.testing.s3mock.store.initialBuckets=" + BUCKET))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("s3mock.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        S3MockServer server = new S3MockServer(p, URI.create("http://127.0.0.1:" + http));
        try {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException(
                                    "S3Mock exited: " + Files.readString(dir.resolve("s3mock.log")));
                        }
                        return server.answers();
                    });
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private boolean answers() {
        try {
            HttpURLConnection c =
                    (HttpURLConnection) endpoint.resolve("/" + BUCKET).toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            return c.getResponseCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    URI endpoint() {
        return endpoint;
    }

    S3Settings settings(String prefix) {
        return new S3Settings(endpoint, "us-east-1", BUCKET, prefix, true, "test", "test", Duration.ofSeconds(10));
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
