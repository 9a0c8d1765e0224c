package dev.logpipe.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Whole-process benchmark: a real log-forwarder child process tails one file of N ~200-byte lines into
 * the file sink; prints lines/s, MB/s, CPU-seconds per million lines and peak RSS.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.ForwarderThroughputBench \
 *     [--lines 10000000] [--format ndjson|raw] [--sink file|http|kafka] [--http-compression gzip|zstd|none] [--spool] [--compression zstd|lz4|none] [--kafka-property key=value ...] [--read-buffer 1MiB] [--dir /tmp/logpipe-bench] [--jvm-opts "..."]
 * </pre>
 * The forwarder jar is taken from forwarder/target/log-forwarder.jar (build it first).
 */
public final class ForwarderThroughputBench {
    public static void main(String[] args) throws Exception {
        long lines = 10_000_000;
        String format = "ndjson";
        String readBuffer = "1MiB";
        String sinkType = "file";
        String httpCompression = "gzip";
        boolean spool = false;
        String compression = "lz4";
        StringBuilder kafkaProperties = new StringBuilder();
        Path dir = Path.of("/tmp/logpipe-bench");
        String jvmOpts = "-Xms64m -Xmx192m -XX:+UseSerialGC";
        Path jar = Path.of("forwarder/target/log-forwarder.jar");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--lines" -> lines = Long.parseLong(args[++i]);
                case "--format" -> format = args[++i];
                case "--read-buffer" -> readBuffer = args[++i];
                case "--sink" -> sinkType = args[++i];
                case "--http-compression" -> httpCompression = args[++i];
                case "--spool" -> spool = true;
                case "--compression" -> compression = args[++i];
                case "--kafka-property" -> {
                    String[] kv = args[++i].split("=", 2);
                    kafkaProperties.append("      ").append(kv[0]).append(": '").append(kv[1]).append("'\n");
                }
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jvm-opts" -> jvmOpts = args[++i];
                case "--jar" -> jar = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Files.createDirectories(dir.resolve("logs"));
        Path input = dir.resolve("logs").resolve("app.log");
        long inputBytes = ensureInput(input, lines);
        Path out = dir.resolve("out.ndjson");
        Files.deleteIfExists(out);
        deleteState(dir.resolve("state"));
        String yaml = String.join("\n",
                "watch:",
                "  poll: 50ms",
                "  read_buffer: " + readBuffer,
                "  state:",
                "    path: " + dir.resolve("state/watermarks.json"),
                "  sources:",
                "    - path: " + dir.resolve("logs"),
                "      patterns: [\"app.log\"]",
                "");
        AckServer ack = null;
        dev.logpipe.broker.BrokerProcess broker = null;
        if (sinkType.equals("kafka")) {
            Path brokerDir = dir.resolve("broker");
            deleteRecursively(brokerDir);
            broker = dev.logpipe.broker.BrokerProcess.start(brokerDir);
            broker.createTopic("bench.records", 1, java.util.Map.of());
            yaml += "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: " + broker.bootstrapServers()
                    + "\n    topic: bench.records\n    compression: " + compression + "\n"
                    + (kafkaProperties.isEmpty() ? "" : "    properties:\n" + kafkaProperties);
        } else if (sinkType.equals("http")) {
            ack = AckServer.start();
            yaml += "sink:\n  type: http\n  http:\n    url: " + ack.url() + "\n    compression: " + httpCompression + "\n";
        } else {
            yaml += "sink:\n  type: file\n  file:\n    path: " + out + "\n    format: " + format + "\n";
        }
        if (spool) {
            deleteRecursively(dir.resolve("spool"));
            yaml += "  spool:\n    enabled: true\n    path: " + dir.resolve("spool") + "\n    max_bytes: 8GiB\n";
        }
        BenchForwarder f = BenchForwarder.start(jar, dir, jvmOpts, yaml);
        long t0 = System.nanoTime();
        // With a spool, done means delivered by the spool to the sink, not only accepted into the spool.
        f.awaitMetric(spool ? "log_forwarder_spool_records_delivered_total" : "log_forwarder_records_published_total",
                lines, Duration.ofMinutes(10));
        double seconds = (System.nanoTime() - t0) / 1e9;
        ProcessStats stats = f.stats();
        ProcessStats brokerStats = broker == null ? null : ProcessStats.of(broker.pid());
        f.close();
        if (broker != null) {
            broker.close();
        }
        if (ack != null) {
            ack.close();
        }
        System.out.printf(Locale.ROOT, "forwarder file->%s%s (%s): %,d lines, %.1f MB in %.2f s (incl. JVM start)%n",
                spool ? "spool->" : "", sinkType, sinkType.equals("http") ? "ndjson, " + httpCompression : format, lines, inputBytes / 1e6, seconds);
        System.out.printf(Locale.ROOT, "  throughput     %,.0f lines/s  %.0f MB/s%n", lines / seconds,
                inputBytes / 1e6 / seconds);
        System.out.printf(Locale.ROOT, "  cpu            %.2f CPU-s total (user %.2f, system %.2f), %.3f CPU-s per million lines%n",
                stats.cpuSeconds(), stats.userSeconds(), stats.systemSeconds(), stats.cpuSeconds() / (lines / 1e6));
        System.out.printf(Locale.ROOT, "  peak RSS       %.1f MiB%n", stats.peakRssKiB() / 1024.0);
        if (brokerStats != null) {
            System.out.printf(Locale.ROOT, "  broker         %.2f CPU-s (child JVM, acks=all, 1 partition), peak RSS %.1f MiB%n",
                    brokerStats.cpuSeconds(), brokerStats.peakRssKiB() / 1024.0);
        } else if (ack != null) {
            System.out.printf(Locale.ROOT, "  http           %,d requests, %.1f MB received%n", ack.requests(),
                    ack.bytes() / 1e6);
        } else {
            System.out.printf(Locale.ROOT, "  output         %.1f MB%n", Files.size(out) / 1e6);
        }
    }

    /** Writes N lines of ~200 bytes (a realistic access-log shape) unless the file already has them. */
    static long ensureInput(Path input, long lines) throws IOException {
        // The marker holds the size of the input it vouches for; a different line count rewrites the input.
        Path marker = input.resolveSibling(input.getFileName() + "." + lines + ".done");
        if (Files.exists(marker) && Files.exists(input)
                && Files.readString(marker).trim().equals(Long.toString(Files.size(input)))) {
            return Files.size(input);
        }
        Random r = new Random(42);
        String[] paths = {"/api/v1/orders", "/api/v1/users/profile", "/checkout", "/static/app.js", "/healthz"};
        String[] levels = {"INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"};
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(input), 1 << 20)) {
            StringBuilder b = new StringBuilder(256);
            for (long i = 0; i < lines; i++) {
                b.setLength(0);
                b.append("2026-12-01T08:").append(10 + (i / 600_000) % 50).append(':')
                        .append(String.format(Locale.ROOT, "%02d.%03d", (i / 10_000) % 60, i % 1000))
                        .append("Z ").append(levels[r.nextInt(levels.length)])
                        .append(" [http-nio-8080-exec-").append(r.nextInt(64)).append("] c.e.web.AccessLog - ")
                        .append("method=GET path=").append(paths[r.nextInt(paths.length)])
                        .append(" status=").append(r.nextInt(10) == 0 ? 500 : 200)
                        .append(" duration_ms=").append(r.nextInt(900))
                        .append(" trace_id=").append(Long.toHexString(r.nextLong()))
                        .append(" user=\"u").append(r.nextInt(100_000)).append("\" seq=").append(i);
                while (b.length() < 199) {
                    b.append(' ').append((char) ('a' + r.nextInt(26)));
                }
                b.append('\n');
                os.write(b.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        Files.writeString(marker, Long.toString(Files.size(input)));
        return Files.size(input);
    }

    static void deleteRecursively(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path q : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(q);
            }
        }
    }

    private static void deleteState(Path stateDir) throws IOException {
        if (!Files.isDirectory(stateDir)) {
            return;
        }
        try (var s = Files.list(stateDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Files.delete(p);
            }
        }
    }
}
