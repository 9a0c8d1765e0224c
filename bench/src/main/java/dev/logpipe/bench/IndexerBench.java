package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Whole-process indexer benchmark: a broker child, N ~300-byte records pre-loaded into the records topic (messages
 * of 100 NDJSON records, as a collector writes them), then a real indexer child (from
 * {@code indexer/target/logpipe-indexer.jar}) consumes the backlog. Phase 1 prints the sustained records/s after
 * warm-up (from the indexer's {@code /api/v1/status}, sampled every second) and the indexer's CPU; then, with
 * {@code --settle N}, nothing is sent for N seconds (the backlog's merges and compilations end: phase 2 then measures a
 * steady state rather than the end of a catch-up) and that idle time's CPU is printed; phase 2 produces
 * at a fixed rate (default: half of phase 1) and measures freshness from outside: for each message, the time from
 * its send to the first status sample whose QUERYABLE offset covers it (status polled every 20 ms, so figures are
 * at most ~20 ms pessimistic). Finally: index bytes per million records and the ratio to the raw NDJSON. Each phase
 * also prints the indexer's CPU by thread (numbers dropped from thread names, so {@code C CompilerThre} is the JIT's
 * C1 and C2 threads together), and phase 2 the slowest message of each second of sending (when the tail happens) and,
 * per 30 s window of sending, the freshness quantiles with the p99 time to READ and to INDEXED (where it waited).
 *
 * <pre>
 *   java -XX:TieredStopAtLevel=1 -cp bench/target/logpipe-bench.jar dev.logpipe.bench.IndexerBench
 *     [--records 2000000] [--warmup 20] [--partitions 4] [--tenants 3] [--settle 0] [--fresh-seconds 30]
 *     [--fresh-rate 0 (= half)]
 *     [--jvm-opts "-Xms1g -Xmx1g -XX:-TieredCompilation"] [--dir /tmp/logpipe-indexer-bench] [--jar indexer/target/logpipe-indexer.jar]
 * </pre>
 *
 * <p>The load generator shares the box: its messages are built before the freshness phase starts, and C1 alone
 * ({@code -XX:TieredStopAtLevel=1}) keeps its own JIT off the cores (with C2 it compiled for a fifth of a core
 * during the phase); they are held in memory meanwhile, about 350 MB per minute at 20,000 records/s. Every message
 * sent is measured: the watcher keeps polling up to 30 s after the last send.
 *
 * <p>Past 500 lines: a benchmark driver that reads top to bottom as its scenario (load, measure, print), kept in one
 * file so a reader of docs/benchmarks.md finds the whole method in one place.
 */
public final class IndexerBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int PER_MESSAGE = 100;
    /** Freshness is also reported per window of this many seconds of sending. */
    private static final int WINDOW_SECONDS = 30;

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int warmup = 20;
        int partitions = 4;
        int tenants = 3;
        int freshSeconds = 30;
        int settle = 0;
        long freshRate = 0;
        String jvmOpts = "-Xms1g -Xmx1g -XX:-TieredCompilation"; // the JIT choice bin/logpipe gives the indexer
        String extra = "";
        Path dir = Path.of("/tmp/logpipe-indexer-bench");
        Path jar = Path.of("indexer/target/logpipe-indexer.jar");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--tenants" -> tenants = Integer.parseInt(args[++i]);
                case "--fresh-seconds" -> freshSeconds = Integer.parseInt(args[++i]);
                case "--fresh-rate" -> freshRate = Long.parseLong(args[++i]);
                case "--settle" -> settle = Integer.parseInt(args[++i]);
                case "--jvm-opts" -> jvmOpts = args[++i];
                case "--index-yaml" -> extra = args[++i];
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ForwarderThroughputBench.deleteRecursively(dir);
        Files.createDirectories(dir);
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"))) {
            broker.createTopic("bench.records", partitions, Map.of("max.message.bytes", "4194304"));
            broker.createTopic("bench.dead-letter", 1, Map.of());
            Random random = new Random(7);
            long t0 = System.nanoTime();
            long rawBytes = preload(broker.bootstrapServers(), records, tenants, random);
            System.out.printf(
                    Locale.ROOT,
                    "preloaded %,d records (%,d bytes of NDJSON, %.0f B/record) in %.1f s%n",
                    records,
                    rawBytes,
                    (double) rawBytes / records,
                    (System.nanoTime() - t0) / 1e9);

            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path config = dir.resolve("indexer.yaml");
            Files.writeString(config, """
                    listen: 127.0.0.1:%d
                    data_dir: %s
                    kafka:
                      bootstrap_servers: %s
                      topic: bench.records
                      dead_letter_topic: bench.dead-letter
                      properties:
                        group.instance.id: bench-indexer
                    """.formatted(port, dir.resolve("data"), broker.bootstrapServers()) + extra);
            List<String> command = new ArrayList<>(
                    List.of(ProcessHandle.current().info().command().orElse("java")));
            command.add("-XX:+ExitOnOutOfMemoryError"); // as bin/logpipe gives every JVM, before its options
            command.addAll(List.of(jvmOpts.split(" ")));
            command.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
            Process indexer = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("indexer.log").toFile())
                    .start();
            try {
                phaseOne(indexer, port, records, warmup);
                settle(indexer, settle);
                long rate = freshRate;
                phaseTwo(indexer, broker, port, rate, freshSeconds, tenants, random);
                printIndexerMetrics(port);
                indexer.destroy();
                indexer.waitFor();
                long indexBytes = size(dir.resolve("data").resolve("index"));
                long total = records + lastFreshRecords;
                System.out.printf(
                        Locale.ROOT,
                        "index: %,d bytes for %,d records = %,.0f bytes per million records, "
                                + "%.2f of the raw NDJSON (no force-merge)%n",
                        indexBytes,
                        total,
                        indexBytes * 1e6 / total,
                        (double) indexBytes / (rawBytes + lastFreshBytes));
            } finally {
                indexer.destroyForcibly();
            }
        }
        System.exit(0);
    }

    private static long lastFreshRecords;
    private static long lastFreshBytes;
    private static double sustained;

    private static long preload(String bootstrap, long records, int tenants, Random random) throws Exception {
        long bytes = 0;
        Instant base = Instant.now().minusSeconds(6 * 3600);
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
            for (long m = 0; m < records / PER_MESSAGE; m++) {
                String tenant = "tenant-" + (m % tenants);
                byte[] value = message(tenant, m, base.plusMillis(m * 10), random);
                bytes += value.length;
                p.send(new ProducerRecord<>("bench.records", ("k" + (m % 64)).getBytes(), value));
            }
            p.flush();
        }
        return bytes;
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

    private static final String[] SERVICES = {"checkout", "billing", "search", "auth", "inventory", "gateway"};
    private static final String[] LEVELS = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
    private static final String[] PATHS = {"/api/v1/orders", "/api/v1/users", "/api/v2/cart", "/health", "/api/v1/pay"};

    /** PER_MESSAGE records of ~300 bytes each, NDJSON. */
    static byte[] message(String tenant, long m, Instant time, Random r) {
        StringBuilder b = new StringBuilder(PER_MESSAGE * 320);
        String service = SERVICES[(int) (m % SERVICES.length)];
        for (int i = 0; i < PER_MESSAGE; i++) {
            String t = time.plusMillis(i).toString();
            int status = r.nextInt(10) == 0 ? 500 : 200;
            b.append("{\"schema_version\":3,\"record_id\":\"")
                    .append(String.format(Locale.ROOT, "%016x", (m * PER_MESSAGE + i) * 0x9E3779B97F4A7C15L))
                    .append("\",\"event_time\":\"")
                    .append(t)
                    .append("\",\"observed_time\":\"")
                    .append(t)
                    .append("\",\"tenant_id\":\"")
                    .append(tenant)
                    .append("\",\"service\":\"")
                    .append(service)
                    .append("\",\"instance_id\":\"web-")
                    .append(r.nextInt(16))
                    .append("\",\"level\":\"")
                    .append(LEVELS[r.nextInt(LEVELS.length)])
                    .append("\",\"message\":\"GET ")
                    .append(PATHS[r.nextInt(PATHS.length)])
                    .append('/')
                    .append(r.nextInt(1_000_000))
                    .append(' ')
                    .append(status)
                    .append(" took ")
                    .append(r.nextInt(900))
                    .append("ms user=u-")
                    .append(r.nextInt(50_000))
                    .append(" order_id=CO-")
                    .append(r.nextInt(100_000))
                    .append("\",\"fields\":{\"status\":")
                    .append(status)
                    .append(",\"took_ms\":")
                    .append(r.nextInt(900))
                    .append("}}\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode status(int port) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                return JSON.readTree(r.body());
            } catch (IOException e) {
                if (attempt == 5) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static JsonNode statusWhenUp(int port, Process indexer) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!indexer.isAlive()) {
                throw new IllegalStateException("the indexer exited with " + indexer.exitValue());
            }
            try {
                JsonNode s = status(port);
                if (s.get("partitions").size() > 0) {
                    return s;
                }
            } catch (IOException e) {
                // not serving yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the indexer did not serve within 120 s");
    }

    /** Status offsets count Kafka messages (of PER_MESSAGE records each); figures are converted to records. */
    private static void phaseOne(Process indexer, int port, long records, int warmup) throws Exception {
        statusWhenUp(port, indexer);
        long messages = records / PER_MESSAGE;
        long started = System.nanoTime();
        List<long[]> samples = new ArrayList<>(); // {nanos, indexed, queryable}
        ThreadCpu afterWarmup = null;
        ThreadCpu atBacklogEnd = null;
        while (true) {
            JsonNode t = status(port).get("totals");
            long indexed = t.get("indexed").asLong() * PER_MESSAGE;
            if (afterWarmup == null && System.nanoTime() - started >= warmup * 1_000_000_000L) {
                afterWarmup = ThreadCpu.of(indexer.pid());
            }
            if (atBacklogEnd == null && indexed >= records) {
                atBacklogEnd = ThreadCpu.of(indexer.pid());
            }
            samples.add(
                    new long[] {System.nanoTime(), indexed, t.get("queryable").asLong() * PER_MESSAGE});
            if (t.get("committed").asLong() >= messages && t.get("queryable").asLong() >= messages) {
                break;
            }
            if (!indexer.isAlive()) {
                throw new IllegalStateException("the indexer exited with " + indexer.exitValue());
            }
            Thread.sleep(1000);
        }
        long[] from = null;
        for (long[] s : samples) {
            if (s[0] - started >= warmup * 1_000_000_000L) {
                from = s;
                break;
            }
        }
        long[] to = samples.get(samples.size() - 1);
        // the end: the last sample before the backlog ran out (indexed reached records)
        for (long[] s : samples) {
            if (s[1] >= records) {
                to = s;
                break;
            }
        }
        ProcessStats cpu = ProcessStats.of(indexer.pid());
        double total = (to[0] - started) / 1e9;
        if (from == null || to[0] <= from[0]) {
            System.out.printf(
                    Locale.ROOT,
                    "backlog of %,d records consumed in %.1f s (%.0f records/s overall); "
                            + "too short for a warm-up of %d s%n",
                    records,
                    total,
                    records / total,
                    warmup);
            sustained = records / total;
            return;
        }
        sustained = (to[1] - from[1]) / ((to[0] - from[0]) / 1e9);
        System.out.printf(
                Locale.ROOT,
                "backlog of %,d records: %.1f s in all (%.0f records/s including JVM start "
                        + "and warm-up); sustained after %d s warm-up: %.0f records/s over %.1f s; indexer CPU %.1f s "
                        + "(%.2f cores on average), peak RSS %d MiB%n",
                records,
                total,
                records / total,
                warmup,
                sustained,
                (to[0] - from[0]) / 1e9,
                cpu.cpuSeconds(),
                cpu.cpuSeconds() / total,
                cpu.peakRssKiB() / 1024);
        if (afterWarmup != null && atBacklogEnd != null) {
            System.out.println("  CPU by thread over the sustained part: " + atBacklogEnd.since(afterWarmup));
        }
    }

    /**
     * Nothing sent for {@code seconds} after the backlog: the backlog's merges and the JIT's compilations finish, so
     * the freshness phase that follows measures a steady state instead of the end of a catch-up.
     */
    private static void settle(Process indexer, int seconds) throws Exception {
        if (seconds <= 0) {
            return;
        }
        ThreadCpu before = ThreadCpu.of(indexer.pid());
        Thread.sleep(seconds * 1000L);
        ThreadCpu after = ThreadCpu.of(indexer.pid());
        System.out.printf(
                Locale.ROOT,
                "settled %d s with nothing sent: indexer %.1f CPU-s (%s)%n",
                seconds,
                after.totalSince(before),
                after.since(before));
    }

    private static void phaseTwo(
            Process indexer, BrokerProcess broker, int port, long rate, int seconds, int tenants, Random random)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        long target = rate > 0 ? rate : (long) (sustained / 2);
        long messagesPerSecond = Math.max(1, target / PER_MESSAGE);
        ConcurrentLinkedQueue<long[]> sent = new ConcurrentLinkedQueue<>(); // {partition, offset, sendNanos}
        // {sendNanos, to QUERYABLE, to READ, to INDEXED}: where a late message waited
        List<long[]> bySend = Collections.synchronizedList(new ArrayList<>());
        Map<Integer, long[]> stages = new HashMap<>(); // partition -> {read, indexed, queryable}
        // set once every send is acknowledged; the watcher then measures what is still waiting (up to 30 s more)
        AtomicBoolean sendingDone = new AtomicBoolean();
        Thread watcher = new Thread(() -> {
            List<long[]> waiting = new ArrayList<>(); // {partition, offset, sendNanos, readNanos, indexedNanos}
            long end = System.nanoTime() + (seconds + 30) * 1_000_000_000L;
            try {
                while (System.nanoTime() < end) {
                    for (long[] s; (s = sent.poll()) != null; ) {
                        waiting.add(new long[] {s[0], s[1], s[2], 0, 0});
                    }
                    JsonNode parts = status(port).get("partitions");
                    long now = System.nanoTime();
                    for (var it = parts.fields(); it.hasNext(); ) {
                        var e = it.next();
                        if (e.getKey().startsWith("bench.records-")) {
                            JsonNode v = e.getValue();
                            stages.put(Integer.parseInt(e.getKey().substring("bench.records-".length())), new long[] {
                                v.get("read").get("offset").asLong(),
                                v.get("indexed").get("offset").asLong(),
                                v.get("queryable").get("offset").asLong()
                            });
                        }
                    }
                    waiting.removeIf(w -> {
                        long[] st = stages.get((int) w[0]);
                        if (st == null) {
                            return false;
                        }
                        w[3] = w[3] == 0 && st[0] > w[1] ? now : w[3];
                        w[4] = w[4] == 0 && st[1] > w[1] ? now : w[4];
                        if (st[2] > w[1]) {
                            bySend.add(new long[] {w[2], now - w[2], w[3] - w[2], w[4] - w[2]});
                            return true;
                        }
                        return false;
                    });
                    if (waiting.isEmpty() && sendingDone.get() && sent.isEmpty()) {
                        return;
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long sentRecords = 0;
        long sentBytes = 0;
        // every message is built before the clock starts: the load generator shares the indexer's cores (it took
        // 0.2-0.35 of two while it built them as it sent, most of that its own JIT)
        Instant base = Instant.now();
        List<byte[]> values = new ArrayList<>();
        for (long n = 0; n < seconds * messagesPerSecond; n++) {
            long m = 10_000_000L + n;
            values.add(message("tenant-" + (m % tenants), m, base.plusMillis(n), random));
        }
        byte[][] keys = new byte[64][];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = ("k" + k).getBytes(StandardCharsets.UTF_8);
        }
        ThreadCpu benchBefore;
        ThreadCpu cpuBefore;
        ThreadCpu brokerBefore;
        long phaseStart;
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", bootstrap, "acks", "all", "linger.ms", 0, "compression.type", "lz4"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            p.partitionsFor("bench.records"); // metadata before the clock starts
            cpuBefore = ThreadCpu.of(indexer.pid());
            brokerBefore = ThreadCpu.of(broker.pid());
            benchBefore = ThreadCpu.of(ProcessHandle.current().pid());
            watcher.start();
            phaseStart = System.nanoTime();
            long start = phaseStart;
            for (int n = 0; n < values.size(); n++) {
                long due = start + n * 1_000_000_000L / messagesPerSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                byte[] value = values.get(n);
                long sendNanos = System.nanoTime();
                p.send(new ProducerRecord<>("bench.records", keys[(int) ((10_000_000L + n) % 64)], value), (md, e) -> {
                    if (e == null) {
                        sent.add(new long[] {md.partition(), md.offset(), sendNanos});
                    }
                });
                sentRecords += PER_MESSAGE;
                sentBytes += value.length;
                values.set(n, null); // sent: let it go
            }
            p.flush();
        }
        ThreadCpu cpuAfter = ThreadCpu.of(indexer.pid());
        double brokerCpu = ThreadCpu.of(broker.pid()).totalSince(brokerBefore);
        ThreadCpu benchAfter = ThreadCpu.of(ProcessHandle.current().pid());
        double benchCpu = benchAfter.totalSince(benchBefore);
        double sendingSeconds = (System.nanoTime() - phaseStart) / 1e9;
        sendingDone.set(true);
        watcher.join();
        lastFreshRecords = sentRecords;
        lastFreshBytes = sentBytes;
        List<Long> f = new ArrayList<>();
        synchronized (bySend) {
            for (long[] m : bySend) {
                f.add(m[1]);
            }
        }
        Collections.sort(f);
        // every measured message counts, the first seconds too (the rate starts right after the backlog)
        System.out.printf(
                Locale.ROOT,
                "freshness at %,d records/s for %d s (%d of %d messages measured, the rest not queryable within 30 s"
                        + " after the last send): p50 %.0f ms, p99 %.0f ms, max %.0f ms (send -> QUERYABLE in the"
                        + " status, polled every 20 ms)%n",
                messagesPerSecond * PER_MESSAGE,
                seconds,
                f.size(),
                values.size(),
                pct(f, 0.5),
                pct(f, 0.99),
                f.isEmpty() ? 0 : f.get(f.size() - 1) / 1e6);
        System.out.println(
                "  slowest message sent in each second (ms): " + slowestPerSecond(bySend, phaseStart, seconds));
        System.out.println("  by " + WINDOW_SECONDS + " s window of sending: " + byWindow(bySend, phaseStart, seconds));
        System.out.println("  CPU by thread while sending: " + cpuAfter.since(cpuBefore));
        System.out.printf(
                Locale.ROOT,
                "  the box while sending (%.0f s, %d cores): indexer %.1f cores, broker %.1f, this load generator %.1f%n",
                sendingSeconds,
                Runtime.getRuntime().availableProcessors(),
                cpuAfter.totalSince(cpuBefore) / sendingSeconds,
                brokerCpu / sendingSeconds,
                benchCpu / sendingSeconds);
        System.out.println("  the load generator by thread: " + benchAfter.since(benchBefore));
    }

    /**
     * Freshness p50 / p99 / max of the messages sent in each {@link #WINDOW_SECONDS} s window, in order: the first
     * window starts right after the backlog (merges and the JIT still busy), a later one shows the steady state.
     */
    private static String byWindow(List<long[]> bySend, long start, int seconds) {
        int windows = Math.max(1, (seconds + WINDOW_SECONDS - 1) / WINDOW_SECONDS);
        List<List<List<Long>>> in = new ArrayList<>(); // window -> {to QUERYABLE, to READ, to INDEXED}
        for (int i = 0; i < windows; i++) {
            in.add(List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
        }
        synchronized (bySend) {
            for (long[] m : bySend) {
                int w = (int) Math.min(windows - 1, Math.max(0, (m[0] - start) / 1_000_000_000L / WINDOW_SECONDS));
                for (int k = 0; k < 3; k++) {
                    in.get(w).get(k).add(m[k + 1]);
                }
            }
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < windows; i++) {
            in.get(i).forEach(Collections::sort);
            List<Long> f = in.get(i).get(0);
            b.append(i == 0 ? "" : "; ")
                    .append(String.format(
                            Locale.ROOT,
                            "%d-%d s: %.0f / %.0f / %.0f ms (%d; p99 to READ %.0f, to INDEXED %.0f)",
                            i * WINDOW_SECONDS,
                            Math.min(seconds, (i + 1) * WINDOW_SECONDS),
                            pct(f, 0.5),
                            pct(f, 0.99),
                            f.isEmpty() ? 0 : f.get(f.size() - 1) / 1e6,
                            f.size(),
                            pct(in.get(i).get(1), 0.99),
                            pct(in.get(i).get(2), 0.99)));
        }
        return b.toString();
    }

    /** When the freshness tail happens: the slowest message of each second of sending, in order. */
    private static String slowestPerSecond(List<long[]> bySend, long start, int seconds) {
        long[] slowest = new long[seconds + 1];
        synchronized (bySend) {
            for (long[] m : bySend) {
                int second = (int) Math.min(seconds, Math.max(0, (m[0] - start) / 1_000_000_000L));
                slowest[second] = Math.max(slowest[second], m[1]);
            }
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < seconds; i++) {
            b.append(i == 0 ? "" : " ").append(slowest[i] / 1_000_000);
        }
        return b.toString();
    }

    /** The indexer's own view: refresh and commit durations, its freshness samples, pauses (whole run). */
    private static void printIndexerMetrics(int port) throws IOException, InterruptedException {
        String metrics = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        for (String line : metrics.split("\n")) {
            if (!line.startsWith("#")
                    && (line.contains("_refresh_seconds")
                            || line.contains("_commit_seconds")
                            || line.contains("freshness_seconds")
                            || line.contains("pauses_total"))) {
                System.out.println("  indexer " + line);
            }
        }
    }

    private static double pct(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1)) / 1e6;
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }
}
