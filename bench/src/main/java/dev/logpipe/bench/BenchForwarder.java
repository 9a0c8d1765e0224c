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

/** A log-forwarder child process for benchmarks: writes its config, starts it, scrapes its metrics. */
final class BenchForwarder implements AutoCloseable {
    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newHttpClient();

    private BenchForwarder(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts the forwarder with {@code watchAndSink} (YAML for the watch and sink sections) plus a metrics
     * listener on a free port; its output goes to {@code dir/forwarder.log}.
     */
    static BenchForwarder start(Path jar, Path dir, String jvmOpts, String watchAndSink) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("bench.yaml");
        Files.writeString(config, watchAndSink + "metrics:\n  listen: 127.0.0.1:" + port + "\n");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String o : jvmOpts.trim().split("\\s+")) {
            if (!o.isEmpty()) {
                cmd.add(o);
            }
        }
        cmd.addAll(List.of("-jar", jar.toString(), "-config", config.toString()));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("forwarder.log").toFile())
                .start();
        // A benchmark that fails must not leave its forwarder running (and skewing every later measurement).
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "bench-forwarder-reaper"));
        return new BenchForwarder(p, port);
    }

    long pid() {
        return process.pid();
    }

    /** Waits until {@code metric} reaches {@code target}; fails if the process dies or the timeout passes. */
    void awaitMetric(String metric, double target, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (scrape(metric) < target) {
            if (!process.isAlive()) {
                throw new IllegalStateException("forwarder exited early; see its forwarder.log");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + metric + " >= " + target);
            }
            Thread.sleep(250); // each scrape costs the forwarder a few ms of CPU: do not inflate its figures
        }
    }

    /** Waits until the metrics listener answers (the forwarder has started its pipeline). */
    void awaitListening(Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("forwarder did not start listening; see its forwarder.log", e);
                }
                Thread.sleep(100);
            }
        }
    }

    double scrape(String metric) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().split("\n")) {
                if (line.startsWith(metric + " ")) {
                    return Double.parseDouble(
                            line.substring(metric.length() + 1).trim());
                }
            }
        } catch (IOException e) {
            return 0; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    ProcessStats stats() throws IOException {
        return ProcessStats.of(process.pid());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
