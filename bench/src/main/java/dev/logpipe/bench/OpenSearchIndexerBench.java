package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.broker.testing.BrokerProcess;
import dev.logpipe.opensearch.node.OpenSearchProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code logpipe indexer} with {@code store: opensearch} against OpenSearch's own {@code _bulk}, on one OpenSearch
 * 2.19.6 node (a child JVM) and the same records: N records of {@link IndexerBench#message} preloaded into a broker
 * child's records topic and, as {@code _bulk} bodies with explicit ids (the documents the indexer sends, built here),
 * held in memory. Rounds alternate: an indexer child (from {@code indexer/target/logpipe-indexer.jar}, its own
 * consumer group and index prefix) consumes the backlog into fresh indices; then the same documents are sent straight
 * to the node into fresh indices made from the same index template, {@code --clients} bodies at a time. Prints each
 * round's records/s (the indexer: from its first record read to its last record indexed, i.e. acknowledged by a bulk,
 * from its status sampled every 100 ms, with the time to the last Kafka commit printed beside it; the direct sender: its
 * first bulk to its last answer), the indexer process's CPU per record and the node's over that window, and the
 * indexer's requests to the node by endpoint (from its {@code logpipe_indexer_engine_requests_seconds}), then the ratio.
 *
 * <pre>
 *   java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.OpenSearchIndexerBench
 *     [--records 300000] [--rounds 2] [--clients 1] [--partitions 4] [--tenants 3]
 *     [--jvm-opts "-Xms1g -Xmx1g -XX:-TieredCompilation"] [--os-jvm-opts "-Xms1g -Xmx1g"] [--dir /tmp/logpipe-osidx-bench]
 *     [--indexer-yaml 'refresh:\n  interval: 5s\n' (appended to the indexer's configuration)] [--indexer-yaml-b '...' (B's instead)] [--kafka-properties-b '{max.partition.fetch.bytes: 8388608}']
 * </pre>
 */
public final class OpenSearchIndexerBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int PER_MESSAGE = 100;
    private static final int BULK_BYTES = 5 << 20; // the indexer's default opensearch.bulk_bytes

    private OpenSearchIndexerBench() {}

    public static void main(String[] args) throws Exception {
        long records = 300_000;
        int rounds = 2;
        int clients = 1;
        int partitions = 4;
        int tenants = 3;
        String jvmOpts = "-Xms1g -Xmx1g -XX:-TieredCompilation";
        String osJvmOpts = "-Xms1g -Xmx1g";
        Path dir = Path.of("/tmp/logpipe-osidx-bench");
        Path jar = Path.of("indexer/target/logpipe-indexer.jar");
        Path jarB = null; // a second indexer build, interleaved with the first in every round (A/B)
        String extra = "";
        String extraB = null; // B's extra config (default: the same as A's)
        String kafkaB = null; // B's kafka.properties as a YAML flow map, e.g. "{max.partition.fetch.bytes: 8388608}"
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--tenants" -> tenants = Integer.parseInt(args[++i]);
                case "--jvm-opts" -> jvmOpts = args[++i];
                case "--os-jvm-opts" -> osJvmOpts = args[++i];
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--jar-b" -> jarB = Path.of(args[++i]);
                case "--indexer-yaml" -> extra = args[++i].replace("\\n", "\n");
                case "--indexer-yaml-b" -> extraB = args[++i].replace("\\n", "\n");
                case "--kafka-properties-b" -> kafkaB = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ForwarderThroughputBench.deleteRecursively(dir);
        Files.createDirectories(dir);
        List<byte[]> messages = new ArrayList<>();
        Random random = new Random(7);
        Instant base = Instant.now().minusSeconds(6 * 3600);
        for (long m = 0; m < records / PER_MESSAGE; m++) {
            messages.add(IndexerBench.message("tenant-" + (m % tenants), m, base.plusMillis(m * 10), random));
        }
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"));
                OpenSearchProcess os = OpenSearchProcess.start(
                        dir.resolve("opensearch"),
                        OpenSearchProcess.DEFAULT_CLASS_PATH,
                        List.of(osJvmOpts.split(" ")),
                        Duration.ofMinutes(3))) {
            broker.createTopic("bench.records", partitions, Map.of("max.message.bytes", "4194304"));
            broker.createTopic("bench.dead-letter", 1, Map.of());
            try (KafkaProducer<byte[], byte[]> p = producer(broker.bootstrapServers())) {
                for (int m = 0; m < messages.size(); m++) {
                    p.send(new ProducerRecord<>("bench.records", ("k" + (m % 64)).getBytes(), messages.get(m)));
                }
                p.flush();
            }
            System.out.printf(Locale.ROOT, "preloaded %,d records in %d messages%n", records, messages.size());
            List<double[]> logpipe = new ArrayList<>();
            List<Double> direct = new ArrayList<>();
            List<Double> logpipeB = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                // B first in odd rounds, A first in even ones: neither always follows the direct sender's burst
                for (int turn = 0; turn < 2; turn++) {
                    boolean runB = (turn == 0) == (round % 2 == 1);
                    if (runB && jarB != null) {
                        settle(os);
                        double[] b = indexer(
                                os,
                                broker,
                                dir,
                                jarB,
                                jvmOpts,
                                (extraB == null ? extra : extraB),
                                kafkaB,
                                100 + round,
                                records,
                                messages.size());
                        logpipeB.add(b[0]);
                        System.out.printf(
                                Locale.ROOT,
                                "round %d logpipe indexer B (%s): %,.0f records/s, indexer CPU %.1f µs/record%n",
                                round,
                                jarB,
                                b[0],
                                b[1]);
                    } else if (!runB) {
                        settle(os);
                        double[] lp =
                                indexer(os, broker, dir, jar, jvmOpts, extra, null, round, records, messages.size());
                        logpipe.add(lp);
                        System.out.printf(
                                Locale.ROOT,
                                "round %d logpipe indexer: %,.0f records/s, indexer CPU %.1f µs/record (%.2f cores)%n",
                                round,
                                lp[0],
                                lp[1],
                                lp[0] * lp[1] / 1e6);
                    }
                }
                settle(os);
                double d = direct(os, messages, round, clients, records);
                direct.add(d);
                System.out.printf(
                        Locale.ROOT, "round %d OpenSearch _bulk (%d client(s)): %,.0f records/s%n", round, clients, d);
            }
            double lpSum = 0;
            double dSum = 0;
            for (int i = 0; i < rounds; i++) {
                lpSum += logpipe.get(i)[0];
                dSum += direct.get(i);
            }
            System.out.printf(
                    Locale.ROOT,
                    "mean: logpipe %,.0f records/s, OpenSearch _bulk %,.0f records/s, ratio %.2f (goal >= 0.90)%n",
                    lpSum / rounds,
                    dSum / rounds,
                    lpSum / dSum);
            if (jarB != null) {
                double bSum = logpipeB.stream().mapToDouble(Double::doubleValue).sum();
                System.out.printf(
                        Locale.ROOT,
                        "mean B: %,.0f records/s, ratio to OpenSearch _bulk %.2f, B/A %.2f%n",
                        bSum / rounds,
                        bSum / dSum,
                        bSum / lpSum);
            }
        }
        System.exit(0);
    }

    /** One indexer child over the whole backlog: records/s and the indexer's CPU µs per record. */
    private static double[] indexer(
            OpenSearchProcess os,
            BrokerProcess broker,
            Path dir,
            Path jar,
            String jvmOpts,
            String extra,
            String kafkaProperties,
            int round,
            long records,
            long messages)
            throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("indexer-" + round + ".yaml");
        Files.writeString(
                config,
                """
                listen: 127.0.0.1:%d
                data_dir: %s
                kafka:
                  bootstrap_servers: %s
                  topic: bench.records
                  dead_letter_topic: bench.dead-letter
                  group_id: bench-%d
                %s
                store: opensearch
                opensearch:
                  hosts: ["%s"]
                  index_prefix: lp%d
                  replicas: 0
                """.formatted(
                                        port,
                                        dir.resolve("data-" + round),
                                        broker.bootstrapServers(),
                                        round,
                                        kafkaProperties == null ? "" : "  properties: " + kafkaProperties,
                                        os.base(),
                                        round)
                        + extra);
        List<String> command =
                new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.addAll(List.of(jvmOpts.split(" ")));
        command.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
        Process indexer = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("indexer-" + round + ".log").toFile())
                .start();
        try {
            long startNanos = 0;
            double startCpu = 0;
            CpuSplit start = null;
            Map<String, double[]> requestsAtStart = Map.of();
            long indexedNanos = 0;
            double indexedCpu = 0;
            CpuSplit usedToIndexed = null;
            Map<String, double[]> requestsToIndexed = Map.of();
            while (true) {
                if (!indexer.isAlive()) {
                    throw new IllegalStateException(
                            "the indexer exited; see " + dir.resolve("indexer-" + round + ".log"));
                }
                JsonNode totals = status(port);
                long read = totals == null ? 0 : totals.path("read").asLong();
                long indexed = totals == null ? 0 : totals.path("indexed").asLong();
                long committed = totals == null ? 0 : totals.path("committed").asLong();
                // from the first record read (a large poll is written whole before its first acknowledgement)
                if (startNanos == 0 && read > 0) {
                    startNanos = System.nanoTime();
                    startCpu = ProcessStats.of(indexer.pid()).cpuSeconds();
                    start = CpuSplit.now(os.pid(), broker.pid());
                    requestsAtStart = engineRequests(port);
                    records -= indexed * PER_MESSAGE; // measured from here
                }
                // the window ends when the last record is acknowledged by a bulk (INDEXED: on the node's translog,
                // durable), as the direct sender's ends at its last bulk's answer; the Kafka commit that follows
                // (every commit.interval, 5 s) is printed beside it
                if (indexedNanos == 0 && startNanos != 0 && indexed >= messages) {
                    indexedNanos = System.nanoTime();
                    indexedCpu = ProcessStats.of(indexer.pid()).cpuSeconds() - startCpu;
                    usedToIndexed = CpuSplit.now(os.pid(), broker.pid()).minus(start);
                    requestsToIndexed = engineRequests(port);
                }
                if (committed >= messages && indexedNanos != 0) {
                    double toCommitted = (System.nanoTime() - startNanos) / 1e9;
                    double s = (indexedNanos - startNanos) / 1e9;
                    double cpu = indexedCpu;
                    CpuSplit used = usedToIndexed;
                    System.out.printf(
                            Locale.ROOT,
                            "  indexer window %.1f s: node %.2f cores (%.1f µs/record), broker %.2f cores, indexer %.2f"
                                    + " cores, box idle %.2f of %d cores%n",
                            s,
                            used.node() / s,
                            used.node() * 1e6 / records,
                            used.broker() / s,
                            cpu / s,
                            used.idle() / s,
                            Runtime.getRuntime().availableProcessors());
                    printRequests(requestsAtStart, requestsToIndexed, s, records);
                    System.out.printf(
                            Locale.ROOT,
                            "  to the last record indexed %.1f s (%,.0f records/s), to the last committed %.1f s"
                                    + " (%,.0f records/s)%n",
                            s,
                            records / s,
                            toCommitted,
                            records / toCommitted);
                    return new double[] {records / s, cpu * 1e6 / records};
                }
                Thread.sleep(100); // at 50 Hz the status answers cost the indexer ~15 % of its CPU
            }
        } finally {
            indexer.destroy();
            indexer.waitFor();
        }
    }

    /** The same documents sent straight to the node, {@code clients} bulks at a time: records/s. */
    private static double direct(OpenSearchProcess os, List<byte[]> messages, int round, int clients, long records)
            throws Exception {
        String prefix = "direct" + round;
        JsonNode templates = JSON.readTree(
                send(os, "GET", "/_index_template/lp" + round, null).body());
        ObjectNode template =
                (ObjectNode) templates.path("index_templates").path(0).path("index_template");
        ArrayNode patterns = template.putArray("index_patterns");
        patterns.add(prefix + "-*");
        template.remove("composed_of");
        HttpResponse<String> put = send(os, "PUT", "/_index_template/" + prefix, JSON.writeValueAsBytes(template));
        if (put.statusCode() != 200) {
            throw new IllegalStateException("template: " + put.body());
        }
        List<byte[]> bodies = bodies(prefix, messages);
        CpuSplit start = CpuSplit.now(os.pid(), 0);
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                        HttpResponse<String> r = HTTP.send(
                                HttpRequest.newBuilder(URI.create(os.base() + "/_bulk"))
                                        .header("Content-Type", "application/x-ndjson")
                                        .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(i)))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200
                                || r.body().startsWith("{\"took\"") && r.body().contains("\"errors\":true")) {
                            errors.add(
                                    r.body().substring(0, Math.min(500, r.body().length())));
                        }
                    }
                } catch (Exception e) {
                    errors.add(e.toString());
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        CpuSplit used = CpuSplit.now(os.pid(), 0).minus(start);
        System.out.printf(
                Locale.ROOT,
                "  _bulk window %.1f s: node %.2f cores (%.1f µs/record), box idle %.2f of %d cores%n",
                s,
                used.node() / s,
                used.node() * 1e6 / records,
                used.idle() / s,
                Runtime.getRuntime().availableProcessors());
        if (!errors.isEmpty()) {
            throw new IllegalStateException("bulk errors: " + errors.get(0));
        }
        return records / s;
    }

    /** The documents the indexer sends for these records (OpenSearchDocuments' shape), cut at {@link #BULK_BYTES}. */
    private static List<byte[]> bodies(String prefix, List<byte[]> messages) throws IOException {
        DateTimeFormatter day = DateTimeFormatter.ofPattern("yyyy.MM.dd").withZone(ZoneOffset.UTC);
        List<byte[]> out = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream(BULK_BYTES + 4096);
        for (byte[] message : messages) {
            for (String line : new String(message, StandardCharsets.UTF_8).split("\n")) {
                JsonNode r = JSON.readTree(line);
                Instant t = Instant.parse(r.path("event_time").asText());
                String tenant = r.path("tenant_id").asText();
                String index = prefix + "-records-" + tenant + "-" + day.format(t);
                ObjectNode action = JSON.createObjectNode();
                action.putObject("index")
                        .put("_index", index)
                        .put("_id", r.path("record_id").asText());
                ObjectNode doc = JSON.createObjectNode();
                doc.put("record_id", r.path("record_id").asText());
                doc.put("tenant_id", tenant);
                doc.put("level", r.path("level").asText());
                doc.put("service", r.path("service").asText());
                doc.put("instance_id", r.path("instance_id").asText());
                doc.put("event_time", t.toEpochMilli());
                doc.put(
                        "observed_time",
                        Instant.parse(r.path("observed_time").asText()).toEpochMilli());
                doc.put("message", r.path("message").asText());
                ObjectNode fields = doc.putObject("fields");
                r.path("fields").fields().forEachRemaining(e -> {
                    fields.put(e.getKey(), e.getValue().asText());
                    fields.put(e.getKey() + "#long", e.getValue().asLong());
                });
                doc.put("source", line);
                body.write(JSON.writeValueAsBytes(action));
                body.write('\n');
                body.write(JSON.writeValueAsBytes(doc));
                body.write('\n');
                if (body.size() >= BULK_BYTES) {
                    out.add(body.toByteArray());
                    body.reset();
                }
            }
        }
        if (body.size() > 0) {
            out.add(body.toByteArray());
        }
        return out;
    }

    private static HttpResponse<String> send(OpenSearchProcess os, String method, String path, byte[] body)
            throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(os.base() + path))
                        .header("Content-Type", "application/json")
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The indexer's requests to OpenSearch by endpoint, from its /metrics: {count, seconds waited}; empty for a build
     * without {@code logpipe_indexer_engine_requests_seconds}.
     */
    private static Map<String, double[]> engineRequests(int port) {
        Map<String, double[]> out = new java.util.TreeMap<>();
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().split("\n")) {
                boolean count = line.startsWith("logpipe_indexer_engine_requests_seconds_count{");
                boolean sum = line.startsWith("logpipe_indexer_engine_requests_seconds_sum{");
                if (count || sum) {
                    int e = line.indexOf("endpoint=\"") + 10;
                    String endpoint = line.substring(e, line.indexOf('"', e));
                    double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    out.computeIfAbsent(endpoint, k -> new double[2])[count ? 0 : 1] = v;
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // an older build or a busy indexer: nothing to print
        }
        return out;
    }

    /** Bulks and refreshes over the window: how many, their size, and the share of the window spent waiting. */
    private static void printRequests(
            Map<String, double[]> before, Map<String, double[]> after, double s, long records) {
        StringBuilder b = new StringBuilder("  requests to the node:");
        for (Map.Entry<String, double[]> e : after.entrySet()) {
            double[] was = before.getOrDefault(e.getKey(), new double[2]);
            double n = e.getValue()[0] - was[0];
            double waited = e.getValue()[1] - was[1];
            if (n > 0) {
                b.append(String.format(
                        Locale.ROOT,
                        " %s %.0f (%.1f ms each, waited %.0f%% of the window)",
                        e.getKey(),
                        n,
                        waited * 1e3 / n,
                        waited * 100 / s));
                if (e.getKey().equals("_bulk")) {
                    b.append(String.format(Locale.ROOT, " ~%.0f records per bulk;", records / n));
                }
            }
        }
        if (!after.isEmpty()) {
            System.out.println(b);
        }
    }

    private static JsonNode status(int port) {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()).path("totals") : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        "all",
                        "linger.ms",
                        5,
                        "batch.size",
                        1 << 20,
                        "compression.type",
                        "lz4",
                        "max.request.size",
                        4 << 20),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /**
     * Waits until the node is at rest (under 0.05 of a core over a second: the merges the last run left behind are
     * done), at most 120 s, so no run pays for the one before it.
     */
    private static void settle(OpenSearchProcess os) throws IOException, InterruptedException {
        long started = System.nanoTime();
        double cores = Double.NaN;
        while (System.nanoTime() - started < TimeUnit.SECONDS.toNanos(120)) {
            CpuSplit before = CpuSplit.now(os.pid(), 0);
            Thread.sleep(1000);
            cores = CpuSplit.now(os.pid(), 0).minus(before).node();
            if (cores < 0.05) {
                break;
            }
        }
        System.out.printf(
                Locale.ROOT, "  node at rest after %.0f s (%.2f cores)%n", (System.nanoTime() - started) / 1e9, cores);
    }

    /** CPU seconds of the node and the broker (pid 0: none), and the whole box's idle seconds (/proc/stat). */
    private record CpuSplit(double node, double broker, double idle) {
        static CpuSplit now(long nodePid, long brokerPid) throws IOException {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            double idle = (Long.parseLong(cpu[4]) + Long.parseLong(cpu[5])) / ProcessStats.HZ; // idle + iowait
            return new CpuSplit(
                    ProcessStats.of(nodePid).cpuSeconds(),
                    brokerPid == 0 ? 0 : ProcessStats.of(brokerPid).cpuSeconds(),
                    idle);
        }

        CpuSplit minus(CpuSplit earlier) {
            return new CpuSplit(node - earlier.node, broker - earlier.broker, idle - earlier.idle);
        }
    }
}
