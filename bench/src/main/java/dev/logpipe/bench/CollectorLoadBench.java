package dev.logpipe.bench;

import dev.logpipe.broker.testing.BrokerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Load on a real collector (child JVM from {@code collector/target/logpipe-collector.jar}) with a real broker
 * (child JVM): client threads POST 1,000-record NDJSON bodies over keep-alive connections ({@link RawHttpClient})
 * for a while, either as
 * fast as they are answered or paced to a total rate, and the figures are printed: accepted records/s, answers by
 * status, latency percentiles, the collector's CPU and its RSS over time.
 *
 * <pre>
 *   java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.CollectorLoadBench
 *     [--seconds 30] [--warmup 15] [--clients 4] [--rate 0 (records/s, 0 = unpaced)] [--tenant-limit 0 (records/s)] [--in-flight 256MiB]
 *     [--records 1000] [--jvm-opts "-Xms256m -Xmx512m"] [--dir /tmp/logpipe-collector-bench]
 *     [--protocol native|bulk|otlp|loki|syslog (the same records as Elasticsearch _bulk, OTLP/HTTP protobuf, Loki snappy
 *      protobuf, octet-counted syslog over TCP)]
 * </pre>
 */
public final class CollectorLoadBench {
    private static final String KEY = "bench-key-0123456789abcdef";
    private static CompatBodies.Protocol protocol = CompatBodies.Protocol.NATIVE;
    private static int syslogPort;

    public static void main(String[] args) throws Exception {
        int seconds = 30;
        int warmup = 15;
        int clients = 4;
        long rate = 0;
        long tenantLimit = 0;
        String inFlight = "256MiB";
        int records = 1000;
        String jvmOpts = "-Xms256m -Xmx512m -XX:+UseSerialGC";
        Path dir = Path.of("/tmp/logpipe-collector-bench");
        Path jar = Path.of("collector/target/logpipe-collector.jar");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--protocol" -> protocol = CompatBodies.Protocol.valueOf(args[++i].toUpperCase(Locale.ROOT));
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Long.parseLong(args[++i]);
                case "--tenant-limit" -> tenantLimit = Long.parseLong(args[++i]);
                case "--in-flight" -> inFlight = args[++i];
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--jvm-opts" -> jvmOpts = args[++i];
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ForwarderThroughputBench.deleteRecursively(dir);
        Files.createDirectories(dir);
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"))) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            try (ServerSocket s = new ServerSocket(0)) {
                syslogPort = s.getLocalPort();
            }
            Path config = dir.resolve("collector.yaml");
            Files.writeString(config, """
                    listen: 127.0.0.1:%d
                    limits:
                      max_body_bytes: 1MiB
                      in_flight_bytes: %s
                    tenants:
                      - id: bench
                        api_key_sha256: ['%s']
                        records_per_second: %d
                    kafka:
                      bootstrap_servers: %s
                      partitions: 6
                      replication_factor: 1
                      min_insync_replicas: 1
                    syslog:
                      listeners:
                        - protocol: tcp
                          listen: 127.0.0.1:%d
                          tenant: bench
                    """.formatted(
                            port, inFlight, sha256(KEY), tenantLimit, broker.bootstrapServers(), syslogPort));
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(Arrays.asList(jvmOpts.trim().split("\\s+")));
            cmd.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
            Process collector = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("collector.log").toFile())
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(collector::destroyForcibly, "bench-collector-reaper"));
            try {
                awaitReady(collector, dir.resolve("collector.log"));
                run(port, collector.pid(), broker.pid(), warmup, seconds, clients, rate, records);
            } finally {
                collector.destroy();
                collector.waitFor();
            }
        }
    }

    /** The collector's own count of records committed to the records topic (its /metrics). */
    private static double committedRecords(int port) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        String metrics = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        for (String line : metrics.split("\n")) {
            if (line.startsWith("logpipe_collector_records_accepted_total ")) {
                return Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
            }
        }
        return 0;
    }

    private static void awaitReady(Process p, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!Files.readString(log).contains("collector ready")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("collector did not start; see " + log);
            }
            Thread.sleep(100);
        }
    }

    private static void run(
            int port, long collectorPid, long brokerPid, int warmup, int seconds, int clients, long rate, int records)
            throws Exception {
        byte[][] bodies = new byte[8][];
        for (int b = 0; b < bodies.length; b++) {
            bodies[b] = body(b, records);
        }
        byte[][] requests = new byte[bodies.length][];
        for (int b = 0; b < bodies.length; b++) {
            requests[b] = protocol == CompatBodies.Protocol.NATIVE
                    ? RawHttpClient.post("/api/v1/logs", "Authorization: Bearer " + KEY + "\r\n", bodies[b])
                    : CompatBodies.request(protocol, b, records, "Authorization: Bearer " + KEY + "\r\n");
        }
        Map<Integer, LongAdder> byStatus = new ConcurrentHashMap<>();
        LongAdder accepted = new LongAdder();
        List<long[]> latencies = new ArrayList<>();
        long warmupEnd = System.nanoTime() + Duration.ofSeconds(warmup).toNanos();
        long end = warmupEnd + Duration.ofSeconds(seconds).toNanos();
        double perClientInterval = rate <= 0 ? 0 : 1e9 * records * clients / rate;
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        ProcessStats before = null;
        for (int c = 0; c < clients; c++) {
            long[] lat = new long[1 << 20];
            latencies.add(lat);
            int client = c;
            Thread t = new Thread(
                    () -> {
                        CompatBodies.Sender http = protocol == CompatBodies.Protocol.SYSLOG
                                ? new CompatBodies.SyslogSender("127.0.0.1", syslogPort)
                                : new RawHttpClient("127.0.0.1", port);
                        int n = 0;
                        long next = System.nanoTime();
                        while (System.nanoTime() < end) {
                            if (perClientInterval > 0) {
                                long wait = next - System.nanoTime();
                                if (wait > 0) {
                                    LockSupport.parkNanos(wait);
                                } else if (-wait > perClientInterval) {
                                    next = System.nanoTime(); // behind schedule: no catch-up burst, the rate is a
                                    // ceiling
                                }
                                next += (long) perClientInterval;
                            }
                            byte[] request = requests[(client + n) % requests.length];
                            long t0 = System.nanoTime();
                            try {
                                int status = http.send(request);
                                long took = System.nanoTime() - t0;
                                if (t0 > warmupEnd) {
                                    byStatus.computeIfAbsent(status, k -> new LongAdder())
                                            .increment();
                                    if (status / 100 == 2) {
                                        accepted.add(records);
                                        if (n < lat.length) {
                                            lat[n] = took;
                                        }
                                    }
                                    n++;
                                }
                            } catch (IOException e) {
                                errors.incrementAndGet();
                            }
                        }
                        http.close();
                        lat[lat.length - 1] = n; // how many entries were written
                    },
                    "load-" + c);
            threads.add(t);
            t.start();
        }
        while (System.nanoTime() < warmupEnd) {
            Thread.sleep(50);
        }
        before = ProcessStats.of(collectorPid);
        ProcessStats brokerBefore = ProcessStats.of(brokerPid);
        double committedBefore = committedRecords(port);
        List<Long> rss = new ArrayList<>();
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            rss.add(ProcessStats.rssKiB(collectorPid));
        }
        for (Thread t : threads) {
            t.join();
        }
        ProcessStats after = ProcessStats.of(collectorPid);
        ProcessStats brokerAfter = ProcessStats.of(brokerPid);
        double committed = committedRecords(port) - committedBefore;
        long[] all = latencies.stream()
                .flatMapToLong(l -> Arrays.stream(l, 0, (int) Math.min(l[l.length - 1], l.length - 1)))
                .filter(v -> v > 0)
                .sorted()
                .toArray();
        System.out.printf(
                Locale.ROOT,
                "collector load (%s): %d clients, %s, %,d-record requests, %d s measured after " + "%d s warm-up%n",
                protocol.name().toLowerCase(Locale.ROOT),
                clients,
                rate <= 0 ? "unpaced" : String.format(Locale.ROOT, "paced to %,d records/s", rate),
                records,
                seconds,
                warmup);
        System.out.printf(
                Locale.ROOT,
                "  accepted       %,.0f records/s in 200 answers; %,.0f records/s committed "
                        + "(the collector's logpipe_collector_records_accepted_total, 429s that took part of a body included)%n",
                accepted.sum() / (double) seconds,
                committed / seconds);
        System.out.printf(
                Locale.ROOT,
                "  answers        %s, client errors %d%n",
                byStatus.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue().sum())
                        .sorted()
                        .toList(),
                errors.get());
        if (all.length > 0) {
            System.out.printf(
                    Locale.ROOT,
                    "  latency (200)  p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                    all[all.length / 2] / 1e6,
                    all[(int) (all.length * 0.99)] / 1e6,
                    all[all.length - 1] / 1e6);
        }
        System.out.printf(
                Locale.ROOT,
                "  collector      %.2f CPU-s (%.2f cores), peak RSS %.1f MiB, RSS over the run " + "(MiB): %s%n",
                after.cpuSeconds() - before.cpuSeconds(),
                (after.cpuSeconds() - before.cpuSeconds()) / seconds,
                after.peakRssKiB() / 1024.0,
                rss.stream().map(k -> Long.toString(k / 1024)).toList());
        System.out.printf(
                Locale.ROOT, "  broker         %.2f CPU-s%n", brokerAfter.cpuSeconds() - brokerBefore.cpuSeconds());
    }

    /** {@code records} ~250-byte records, some with secret-shaped text for the redactor to find. */
    private static byte[] body(int seed, int records) {
        StringBuilder b = new StringBuilder(records * 260);
        String[] services = {"checkout", "payments", "search", "auth"};
        for (int i = 0; i < records; i++) {
            b.append("{\"message\":\"request handled path=/api/v1/items/")
                    .append(seed * 100_000 + i)
                    .append(" status=200 duration_ms=")
                    .append(i % 97)
                    .append(i % 50 == 0 ? " password=hunter2" : "")
                    .append(i % 77 == 0 ? " Authorization: Bearer abcdefghijklmnop" : "")
                    .append(" user=alice trace=abcdef0123456789\",\"service\":\"")
                    .append(services[i % 4])
                    .append("\",\"instance_id\":\"")
                    .append(services[i % 4])
                    .append("-")
                    .append(i % 3)
                    .append("\",\"level\":\"info\",\"event_time\":\"2026-12-01T10:00:00.")
                    .append(100 + i % 900)
                    .append("Z\",\"fields\":{\"http.status\":200,\"region\":\"eu-1\"}}\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String sha256(String s) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
