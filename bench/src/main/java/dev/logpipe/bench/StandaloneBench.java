package dev.logpipe.bench;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * Whole-process benchmark of {@code logpipe standalone} (the built {@code server/target/logpipe.jar}, JVM options as
 * bin/logpipe uses them): time from process start to the ready line, RSS after {@code --idle} seconds, then
 * ingest-to-visible latency at {@code --rate} records/s: batches of records with a token unique per batch are posted
 * every 50 ms; the newest batch not yet seen is searched for (GET /api/v1/search) until it is found, so a latency is
 * measured from the post's answer to the first search that returns it (polling makes it an over-estimate).
 *
 * <pre>java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.StandaloneBench [--jar server/target/logpipe.jar]
 *     [--idle 30] [--rate 10000] [--seconds 30] [--config standalone.yaml]
 *     [--jvm-opts "-Xms256m -Xmx768m -XX:+UseSerialGC" (the default, as bin/logpipe)] [--trace SECONDS]</pre>
 *
 * <p>{@code --trace N} also prints, for the first N seconds of the load, the slowest search round trip of each second
 * and the indexer's stage totals every 250 ms ({@link StageTrace}), to place a lag in a stage.
 */
public final class StandaloneBench {
    public static void main(String[] args) throws Exception {
        String jar = "server/target/logpipe.jar";
        int idle = 30;
        int rate = 10_000;
        int seconds = 30;
        String config = null;
        List<String> javaOpts = List.of("-Xms256m", "-Xmx768m", "-XX:+UseSerialGC");
        int trace = 0;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--jar" -> jar = args[i + 1];
                case "--idle" -> idle = Integer.parseInt(args[i + 1]);
                case "--rate" -> rate = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--config" -> config = args[i + 1];
                case "--jvm-opts" -> javaOpts = List.of(args[i + 1].trim().split("\\s+"));
                case "--trace" -> trace = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("standalone-bench");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String key = "bench-key-0123456789abcdef";
        List<String> command = new ArrayList<>();
        command.add("java");
        command.add("-XX:+ExitOnOutOfMemoryError"); // as bin/logpipe gives every JVM, before its options
        command.addAll(javaOpts);
        command.addAll(List.of(
                "-jar",
                jar,
                "standalone",
                "--data",
                dir.resolve("data").toString(),
                "--port",
                Integer.toString(port),
                "--broker-port",
                "0"));
        if (config != null) {
            command.addAll(List.of("--config", Path.of(config).toAbsolutePath().toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectError(dir.resolve("stderr.txt").toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile());
        pb.environment().put("LOGPIPE_API_KEY", key);
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            while (!Files.readString(dir.resolve("stdout.txt")).contains("logpipe standalone ready url=")) {
                if (!p.isAlive()) {
                    throw new IllegalStateException(
                            "standalone exited: " + Files.readString(dir.resolve("stderr.txt")));
                }
                Thread.sleep(20);
            }
            double ready = (System.nanoTime() - t0) / 1e9;
            String base = "http://127.0.0.1:" + port;
            HttpClient http = HttpClient.newHttpClient();
            while (get(http, base + "/readyz", null).statusCode() != 200) {
                Thread.sleep(20);
            }
            double readyz = (System.nanoTime() - t0) / 1e9;
            System.out.printf("ready line after %.2f s, /readyz 200 after %.2f s%n", ready, readyz);
            Thread.sleep(idle * 1000L);
            System.out.printf("idle RSS after %d s: %d MiB%n", idle, ProcessStats.rssKiB(p.pid()) / 1024);
            System.out.println("JVM options: " + String.join(" ", javaOpts));
            latency(http, base, key, rate, seconds, p.pid(), trace);
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    private static void latency(
            HttpClient http, String base, String key, int rate, int seconds, long pid, int traceSeconds)
            throws Exception {
        int perBatch = Math.max(1, rate / 20);
        int batches = seconds * 20;
        String run = Long.toString(System.nanoTime() % 100000);
        long[] postedAt = new long[batches];
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        double[] byBatch = new double[batches];
        long[] searchNanos = new long[seconds + 2];
        StageTrace stages = new StageTrace(http, base, traceSeconds);
        Thread checker = new Thread(
                () -> {
                    int next = 0;
                    try {
                        while (next < batches) {
                            if (postedAt[next] == 0) {
                                Thread.sleep(5);
                                continue;
                            }
                            long asked = System.nanoTime();
                            HttpResponse<String> r =
                                    get(http, base + "/api/v1/search?limit=1&from=now-10m&q=b" + run + "x" + next, key);
                            int sec = (int) Math.min(seconds + 1, (asked - postedAt[0]) / 1_000_000_000L);
                            searchNanos[sec] = Math.max(searchNanos[sec], System.nanoTime() - asked);
                            if (r.statusCode() == 200 && r.body().contains("b" + run + "x" + next + " ")) {
                                latencies.add((System.nanoTime() - postedAt[next]) / 1e6);
                                byBatch[next] = latencies.get(latencies.size() - 1);
                                next++;
                            } else {
                                Thread.sleep(20);
                            }
                        }
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                },
                "visible-checker");
        checker.start();
        long start = System.nanoTime();
        stages.start(start);
        for (int b = 0; b < batches; b++) {
            long due = start + b * 50_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            StringBuilder body = new StringBuilder(perBatch * 120);
            for (int i = 0; i < perBatch; i++) {
                body.append("{\"message\":\"bench batch b")
                        .append(run)
                        .append('x')
                        .append(b)
                        .append(" record ")
                        .append(i)
                        .append("\",\"level\":\"INFO\",\"service\":\"bench\"}\n");
            }
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/logs"))
                            .header("Authorization", "Bearer " + key)
                            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("ingest answered " + r.statusCode() + ": " + r.body());
            }
            postedAt[b] = System.nanoTime();
        }
        double sendSeconds = (System.nanoTime() - start) / 1e9;
        checker.join(60_000);
        stages.stop();
        List<Double> l = new ArrayList<>(latencies);
        Collections.sort(l);
        if (l.isEmpty()) {
            System.out.println("no batch became visible (is the query service part of this build?)");
            return;
        }
        System.out.printf(
                "ingest %d records in %.1f s (%.0f records/s offered), %d/%d batches visible; "
                        + "ingest-to-visible p50 %.0f ms, p99 %.0f ms, max %.0f ms; RSS %d MiB%n",
                batches * perBatch,
                sendSeconds,
                batches * perBatch / sendSeconds,
                l.size(),
                batches,
                l.get(l.size() / 2),
                l.get((int) Math.min(l.size() - 1, Math.ceil(l.size() * 0.99) - 1)),
                l.get(l.size() - 1),
                ProcessStats.rssKiB(pid) / 1024);
        StringBuilder perSecond = new StringBuilder("worst latency per second of the run (ms):");
        for (int sec = 0; sec * 20 < batches; sec++) {
            double worst = 0;
            for (int b = sec * 20; b < Math.min(batches, sec * 20 + 20); b++) {
                worst = Math.max(worst, byBatch[b]);
            }
            perSecond.append(' ').append(Math.round(worst));
        }
        System.out.println(perSecond);
        if (traceSeconds > 0) {
            StringBuilder searches = new StringBuilder("slowest search round trip per second (ms):");
            for (int sec = 0; sec < Math.min(seconds, traceSeconds); sec++) {
                searches.append(' ').append(searchNanos[sec] / 1_000_000);
            }
            System.out.println(searches);
            stages.print();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url, String key)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            return new ErrorResponse();
        }
    }

    /** What a refused connection looks like to the polling loops. */
    private static final class ErrorResponse implements HttpResponse<String> {
        public int statusCode() {
            return 0;
        }

        public HttpRequest request() {
            return null;
        }

        public Optional<HttpResponse<String>> previousResponse() {
            return Optional.empty();
        }

        public HttpHeaders headers() {
            return HttpHeaders.of(Map.of(), (a, b) -> true);
        }

        public String body() {
            return "";
        }

        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        public URI uri() {
            return null;
        }

        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }
}
