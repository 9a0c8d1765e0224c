package dev.logpipe.bench;

import dev.logpipe.broker.testing.BrokerProcess;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Whole-process benchmark: a real log-forwarder child process tails one file of N ~200-byte lines into
 * the file sink; prints lines/s, MB/s, CPU-seconds per million lines and peak RSS.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.ForwarderThroughputBench \
 *     [--lines 10000000] [--input text|json|logfmt|cri|cri-json|docker] [--as-text] [--format ndjson|raw] [--sink file|http|kafka] [--http-compression gzip|zstd|none] [--spool] [--compression zstd|lz4|none] [--kafka-property key=value ...] [--read-buffer 1MiB] [--parse-threads N] [--dir /tmp/logpipe-bench] [--jvm-opts "..."] [--growing]
 * </pre>
 * {@code --growing}: the daemon starts on an empty file and the whole input is appended at once (timed from the
 * append), as a live log grows; without it the file is complete before the daemon starts. With the Kafka sink the
 * bench also prints the broker's CPU while forwarding and the number of Kafka messages (lines per message).
 * {@code --as-text} reads the input of any {@code --input} with the plain-text record path (no parser: each line
 * is a record's message), so a parsed format and the plain-text path can be compared on the same bytes.
 * The forwarder jar is taken from forwarder/target/log-forwarder.jar (build it first).
 */
public final class ForwarderThroughputBench {
    public static void main(String[] args) throws Exception {
        long lines = 10_000_000;
        String inputFormat = "text";
        boolean asText = false;
        String format = "ndjson";
        String readBuffer = "1MiB";
        String parseThreads = null;
        String sinkType = "file";
        String httpCompression = "gzip";
        boolean spool = false;
        String compression = "lz4";
        StringBuilder kafkaProperties = new StringBuilder();
        Path dir = Path.of("/tmp/logpipe-bench");
        String jvmOpts = "-Xms64m -Xmx192m -XX:+UseSerialGC";
        Path jar = Path.of("forwarder/target/log-forwarder.jar");
        boolean growing = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--lines" -> lines = Long.parseLong(args[++i]);
                case "--input" -> inputFormat = args[++i];
                case "--as-text" -> asText = true;
                case "--format" -> format = args[++i];
                case "--read-buffer" -> readBuffer = args[++i];
                case "--parse-threads" -> parseThreads = args[++i];
                case "--sink" -> sinkType = args[++i];
                case "--http-compression" -> httpCompression = args[++i];
                case "--spool" -> spool = true;
                case "--compression" -> compression = args[++i];
                case "--kafka-property" -> {
                    String[] kv = args[++i].split("=", 2);
                    kafkaProperties
                            .append("      ")
                            .append(kv[0])
                            .append(": '")
                            .append(kv[1])
                            .append("'\n");
                }
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jvm-opts" -> jvmOpts = args[++i];
                case "--jar" -> jar = Path.of(args[++i]);
                case "--growing" -> growing = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Files.createDirectories(dir.resolve("logs"));
        InputFormat in = InputFormat.named(inputFormat);
        Path input = dir.resolve(growing ? "source" : "logs").resolve(in.fileName());
        Files.createDirectories(input.getParent());
        long inputBytes = ensureInput(input, lines, in);
        Path watched = dir.resolve("logs").resolve(in.fileName());
        if (growing) { // the daemon watches an empty file; the whole input is appended once it runs
            Files.deleteIfExists(watched);
            Files.createFile(watched);
        }
        Path out = dir.resolve("out.ndjson");
        Files.deleteIfExists(out);
        deleteState(dir.resolve("state"));
        String yaml = String.join(
                "\n",
                "watch:",
                "  poll: 50ms",
                "  read_buffer: " + readBuffer,
                parseThreads == null ? "" : "  parse_threads: " + parseThreads,
                "  state:",
                "    path: " + dir.resolve("state/watermarks.json"),
                "  sources:",
                "    - path: " + dir.resolve("logs"),
                "      patterns: [\"" + in.fileName() + "\"]",
                asText ? "" : in.parserYaml());
        AckServer ack = null;
        BrokerProcess broker = null;
        if (sinkType.equals("kafka")) {
            Path brokerDir = dir.resolve("broker");
            deleteRecursively(brokerDir);
            broker = BrokerProcess.start(brokerDir);
            broker.createTopic("bench.records", 1, Map.of());
            yaml += "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: " + broker.bootstrapServers()
                    + "\n    topic: bench.records\n    compression: " + compression + "\n"
                    + (kafkaProperties.isEmpty() ? "" : "    properties:\n" + kafkaProperties);
        } else if (sinkType.equals("http")) {
            ack = AckServer.start();
            yaml += "sink:\n  type: http\n  http:\n    url: " + ack.url() + "\n    compression: " + httpCompression
                    + "\n";
        } else {
            yaml += "sink:\n  type: file\n  file:\n    path: " + out + "\n    format: " + format + "\n";
        }
        if (spool) {
            deleteRecursively(dir.resolve("spool"));
            yaml += "  spool:\n    enabled: true\n    path: " + dir.resolve("spool") + "\n    max_bytes: 8GiB\n";
        }
        ProcessStats brokerBefore = broker == null ? null : ProcessStats.of(broker.pid());
        BenchForwarder f = BenchForwarder.start(jar, dir, jvmOpts, yaml);
        if (growing) {
            f.awaitListening(Duration.ofMinutes(1));
            Thread.sleep(1000); // a few polls: the empty file is found and watched
        }
        long t0 = System.nanoTime();
        if (growing) {
            try (FileChannel from = FileChannel.open(input);
                    FileChannel to = FileChannel.open(watched, StandardOpenOption.APPEND)) {
                long done = 0;
                while (done < inputBytes) {
                    done += from.transferTo(done, inputBytes - done, to);
                }
            }
        }
        // With a spool, done means delivered by the spool to the sink, not only accepted into the spool.
        f.awaitMetric(
                spool ? "log_forwarder_spool_records_delivered_total" : "log_forwarder_records_published_total",
                lines,
                Duration.ofMinutes(10));
        double seconds = (System.nanoTime() - t0) / 1e9;
        ProcessStats stats = f.stats();
        ProcessStats brokerStats = broker == null ? null : ProcessStats.of(broker.pid());
        f.close();
        long messages = broker == null ? 0 : endOffset(broker.bootstrapServers(), "bench.records");
        if (broker != null) {
            broker.close();
        }
        if (ack != null) {
            ack.close();
        }
        System.out.printf(
                Locale.ROOT,
                "forwarder %s%s file->%s%s (%s): %,d lines, %.1f MB in %.2f s (incl. JVM start)%n",
                inputFormat,
                asText ? " (read as plain text)" : "",
                spool ? "spool->" : "",
                sinkType,
                sinkType.equals("http") ? "ndjson, " + httpCompression : format,
                lines,
                inputBytes / 1e6,
                seconds);
        System.out.printf(
                Locale.ROOT,
                "  throughput     %,.0f lines/s  %.0f MB/s%n",
                lines / seconds,
                inputBytes / 1e6 / seconds);
        System.out.printf(
                Locale.ROOT,
                "  cpu            %.2f CPU-s total (user %.2f, system %.2f), %.3f CPU-s per million lines%n",
                stats.cpuSeconds(),
                stats.userSeconds(),
                stats.systemSeconds(),
                stats.cpuSeconds() / (lines / 1e6));
        System.out.printf(Locale.ROOT, "  peak RSS       %.1f MiB%n", stats.peakRssKiB() / 1024.0);
        if (brokerStats != null) {
            System.out.printf(
                    Locale.ROOT,
                    "  broker         %.2f CPU-s (child JVM, acks=all, 1 partition), peak RSS %.1f MiB%n",
                    brokerStats.cpuSeconds(),
                    brokerStats.peakRssKiB() / 1024.0);
            double during = brokerStats.cpuSeconds() - brokerBefore.cpuSeconds();
            System.out.printf(
                    Locale.ROOT,
                    "  kafka          %,d messages in the topic (%.1f lines per message)%n",
                    messages,
                    messages == 0 ? 0.0 : lines / (double) messages);
            System.out.printf(
                    Locale.ROOT,
                    "  broker run     %.2f CPU-s while forwarding (start and topic creation excluded), %.3f CPU-s per "
                            + "million lines%n",
                    during,
                    during / (lines / 1e6));
        } else if (ack != null) {
            System.out.printf(
                    Locale.ROOT,
                    "  http           %,d requests, %.1f MB received%n",
                    ack.requests(),
                    ack.bytes() / 1e6);
        } else {
            System.out.printf(Locale.ROOT, "  output         %.1f MB%n", Files.size(out) / 1e6);
        }
    }

    /** The number of Kafka messages in partition 0 of {@code topic}: its end offset (no transactions). */
    static long endOffset(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition p = new TopicPartition(topic, 0);
            return c.endOffsets(List.of(p), Duration.ofSeconds(10)).get(p);
        }
    }

    /** Writes N lines of ~200 bytes (a realistic access-log shape) unless the file already has them. */
    static long ensureInput(Path input, long lines) throws IOException {
        return ensureInput(input, lines, InputFormat.TEXT);
    }

    /**
     * Writes N access-log records in {@code format} unless the file already has them. Every format carries the
     * same records (the same random values): a ~200-byte text line, that line's values as a JSON object or
     * logfmt pairs, or the text/JSON line inside a CRI or Docker container log line (every 100th split in two
     * pieces, as runtimes do with long lines).
     */
    static long ensureInput(Path input, long lines, InputFormat format) throws IOException {
        // The marker holds the size of the input it vouches for; a different line count rewrites the input.
        Path marker = input.resolveSibling(input.getFileName() + "." + lines + ".done");
        if (Files.exists(marker)
                && Files.exists(input)
                && Files.readString(marker).trim().equals(Long.toString(Files.size(input)))) {
            return Files.size(input);
        }
        Random r = new Random(42);
        String[] paths = {"/api/v1/orders", "/api/v1/users/profile", "/checkout", "/static/app.js", "/healthz"};
        String[] levels = {"INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"};
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(input), 1 << 20)) {
            StringBuilder b = new StringBuilder(256);
            StringBuilder pad = new StringBuilder(64);
            for (long i = 0; i < lines; i++) {
                String time = "2026-12-01T08:" + (10 + (i / 600_000) % 50) + ":"
                        + String.format(Locale.ROOT, "%02d.%03d", (i / 10_000) % 60, i % 1000) + "Z";
                String level = levels[r.nextInt(levels.length)];
                int thread = r.nextInt(64);
                String path = paths[r.nextInt(paths.length)];
                int status = r.nextInt(10) == 0 ? 500 : 200;
                int duration = r.nextInt(900);
                String trace = Long.toHexString(r.nextLong());
                int user = r.nextInt(100_000);
                b.setLength(0);
                b.append(time)
                        .append(' ')
                        .append(level)
                        .append(" [http-nio-8080-exec-")
                        .append(thread)
                        .append("] c.e.web.AccessLog - ")
                        .append("method=GET path=")
                        .append(path)
                        .append(" status=")
                        .append(status)
                        .append(" duration_ms=")
                        .append(duration)
                        .append(" trace_id=")
                        .append(trace)
                        .append(" user=\"u")
                        .append(user)
                        .append("\" seq=")
                        .append(i);
                pad.setLength(0);
                while (b.length() + pad.length() < 199) {
                    pad.append(' ').append((char) ('a' + r.nextInt(26)));
                }
                String text = b.append(pad).toString();
                String line = switch (format) {
                    case TEXT -> text;
                    case JSON, CRI_JSON ->
                        "{\"time\":\"" + time + "\",\"level\":\"" + level
                                + "\",\"thread\":\"http-nio-8080-exec-" + thread
                                + "\",\"logger\":\"c.e.web.AccessLog\","
                                + "\"msg\":\"GET " + path + "\",\"http\":{\"method\":\"GET\",\"path\":\"" + path
                                + "\",\"status\":" + status + "},\"duration_ms\":" + duration + ",\"trace_id\":\""
                                + trace
                                + "\",\"user\":\"u" + user + "\",\"seq\":" + i + ",\"pad\":\""
                                + pad.toString().trim() + "\"}";
                    case LOGFMT ->
                        "time=" + time + " level=" + level + " thread=http-nio-8080-exec-" + thread
                                + " logger=c.e.web.AccessLog msg=\"GET " + path + "\" method=GET path=" + path
                                + " status=" + status + " duration_ms=" + duration + " trace_id=" + trace
                                + " user=u" + user + " seq=" + i + " pad=\""
                                + pad.toString().trim() + "\"";
                    case CRI, DOCKER -> text;
                };
                if (format == InputFormat.CRI_JSON) {
                    line = cri(time, line, i);
                } else if (format == InputFormat.CRI) {
                    line = cri(time, line, i);
                } else if (format == InputFormat.DOCKER) {
                    line = docker(time, line, i);
                }
                os.write(line.getBytes(StandardCharsets.UTF_8));
                os.write('\n');
            }
        }
        Files.writeString(marker, Long.toString(Files.size(input)));
        return Files.size(input);
    }

    private static String cri(String time, String line, long i) {
        String prefix = time.substring(0, time.length() - 1) + "000000Z stdout ";
        if (i % 100 == 0) {
            int half = line.length() / 2;
            return prefix + "P " + line.substring(0, half) + "\n" + prefix + "F " + line.substring(half);
        }
        return prefix + "F " + line;
    }

    private static String docker(String time, String line, long i) {
        // The bench's lines need no JSON escaping but the quotes around the user.
        String escaped = line.replace("\"", "\\\"");
        String tail = "\",\"stream\":\"stdout\",\"time\":\"" + time + "\"}";
        if (i % 100 == 0) {
            int half = escaped.length() / 2;
            return "{\"log\":\"" + escaped.substring(0, half) + tail + "\n{\"log\":\"" + escaped.substring(half) + "\\n"
                    + tail;
        }
        return "{\"log\":\"" + escaped + "\\n" + tail;
    }

    /** The line format of the generated input and the parser settings that read it. */
    enum InputFormat {
        TEXT("app.log", ""),
        JSON("app-json.log", "parser:\n  format: json\n"),
        LOGFMT("app-logfmt.log", "parser:\n  format: logfmt\n"),
        CRI("app-cri.log", "parser:\n  format: cri\n"),
        CRI_JSON("app-cri-json.log", "parser:\n  format: cri\n  content: json\n"),
        DOCKER("app-docker.log", "parser:\n  format: docker\n");

        private final String fileName;
        private final String parser;

        InputFormat(String fileName, String parser) {
            this.fileName = fileName;
            this.parser = parser;
        }

        static InputFormat named(String name) {
            return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
        }

        String fileName() {
            return fileName;
        }

        String parserYaml() {
            return parser;
        }
    }

    static void deleteRecursively(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path q : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
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
