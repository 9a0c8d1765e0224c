package dev.logpipe.bench;

import dev.logpipe.opensearch.node.OpenSearchProcess;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Posted → searchable, logpipe beside OpenSearch in one run: the same {@link QueryRecords} (spread over the
 * {@code --span-hours} before the run's start, so no retention or lateness rule touches them) are posted to a
 * {@code logpipe standalone} child process (collector → Kafka → indexer → Lucene, all on this machine) over its
 * native {@code /api/v1/logs} in bodies of {@code --batch} records, and the same documents to a single OpenSearch
 * node in a child JVM over {@code _bulk} (one index per day, {@code _id} = {@code record_id}, refresh every 1 s, its
 * default). Each side is sent {@code --clients} bodies at a time and timed from the first request to the moment a
 * count (logpipe: the histogram's total over the range; OpenSearch: {@code _count}) sees every record. The sides
 * alternate for {@code --rounds} rounds, each on a new data directory; a 429/503 from logpipe is retried after its
 * {@code Retry-After} (the records carry ids, so a resent body is upserted, never doubled).
 *
 * <pre>
 *   java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.SearchableIngestBench --jar server/target/logpipe.jar
 *     [--records 2000000] [--batch 5000] [--clients 2] [--rounds 2] [--span-hours 6] [--dir /tmp/searchable-bench]
 *     [--jvm-opts "-Xms256m -Xmx768m -XX:+UseSerialGC"] [--os-jvm-opts "-Xms1g -Xmx2g"] [--only logpipe|opensearch]
 * </pre>
 */
public final class SearchableIngestBench {
    private static final String KEY = "bench-key-0123456789abcdef";
    private static final Pattern TOTAL = Pattern.compile("\"total\":(\\d+)");
    private static final Pattern COUNT = Pattern.compile("\"count\":(\\d+)");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private SearchableIngestBench() {}

    public static void main(String[] args) throws Exception {
        String jar = "server/target/logpipe.jar";
        int records = 2_000_000;
        int batch = 5_000;
        int clients = 2;
        int rounds = 2;
        int spanHours = 6;
        Path dir = Path.of("/tmp/searchable-bench");
        List<String> jvmOpts = List.of("-Xms256m", "-Xmx768m", "-XX:+UseSerialGC");
        List<String> osJvmOpts = List.of("-Xms1g", "-Xmx2g");
        String only = "";
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--jar" -> jar = args[i + 1];
                case "--records" -> records = Integer.parseInt(args[i + 1]);
                case "--batch" -> batch = Integer.parseInt(args[i + 1]);
                case "--clients" -> clients = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--span-hours" -> spanHours = Integer.parseInt(args[i + 1]);
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--jvm-opts" -> jvmOpts = List.of(args[i + 1].trim().split("\\s+"));
                case "--os-jvm-opts" -> osJvmOpts = List.of(args[i + 1].trim().split("\\s+"));
                case "--only" -> only = args[i + 1];
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Instant end = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant start = end.minus(Duration.ofHours(spanHours));
        deleteTree(dir);
        long t0 = System.nanoTime();
        List<Path> logpipeBodies = logpipeBodies(new QueryRecords(records, end, spanHours * 3_600_000L), batch, dir);
        List<Path> bulkBodies = OpenSearchLoad.prepare(
                new QueryRecords(records, end, spanHours * 3_600_000L), batch, dir.resolve("bulk"));
        System.out.printf(
                Locale.ROOT,
                "%,d records over %s .. %s, bodies of %,d, %d clients; bodies written in %.1f s%n",
                records,
                start,
                end,
                batch,
                clients,
                (System.nanoTime() - t0) / 1e9);
        SearchableIngestBench bench = new SearchableIngestBench();
        for (int round = 1; round <= rounds; round++) {
            if (!only.equals("opensearch")) {
                bench.logpipe(round, jar, jvmOpts, logpipeBodies, records, clients, start, end, dir);
            }
            if (!only.equals("logpipe")) {
                bench.openSearch(round, osJvmOpts, bulkBodies, records, clients, dir);
            }
        }
    }

    private void logpipe(
            int round,
            String jar,
            List<String> jvmOpts,
            List<Path> bodies,
            int records,
            int clients,
            Instant from,
            Instant to,
            Path dir)
            throws Exception {
        Path data = dir.resolve("logpipe-" + round);
        Files.createDirectories(data);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of("java", "-XX:+ExitOnOutOfMemoryError"));
        command.addAll(jvmOpts);
        command.addAll(List.of(
                "-jar",
                jar,
                "standalone",
                "--data",
                data.resolve("data").toString(),
                "--port",
                "" + port,
                "--broker-port",
                "0"));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectError(data.resolve("stderr.txt").toFile())
                .redirectOutput(data.resolve("stdout.txt").toFile());
        pb.environment().put("LOGPIPE_API_KEY", KEY);
        Process p = pb.start();
        try {
            while (!Files.readString(data.resolve("stdout.txt")).contains("logpipe standalone ready url=")) {
                if (!p.isAlive()) {
                    throw new IllegalStateException(
                            "standalone exited: " + Files.readString(data.resolve("stderr.txt")));
                }
                Thread.sleep(50);
            }
            String base = "http://127.0.0.1:" + port;
            double cpu0 = ProcessStats.of(p.pid()).cpuSeconds();
            ThreadCpu threads0 = ThreadCpu.of(p.pid());
            long t0 = System.nanoTime();
            AtomicInteger retries = new AtomicInteger();
            ParallelBodies.send(bodies, clients, body -> postToLogpipe(base, body, retries));
            double acked = (System.nanoTime() - t0) / 1e9;
            String count = base + "/api/v1/histogram?q=*&interval=1d&from=" + from + "&to=" + to.plusSeconds(1);
            long seen = waitForAll(() -> number(TOTAL, get(count, true)), records);
            double searchable = (System.nanoTime() - t0) / 1e9;
            ProcessStats after = ProcessStats.of(p.pid());
            report(
                    "logpipe standalone",
                    round,
                    records,
                    acked,
                    searchable,
                    seen,
                    after.cpuSeconds() - cpu0,
                    after.peakRssKiB(),
                    "retried bodies " + retries.get());
            System.out.println("  CPU by thread: " + ThreadCpu.of(p.pid()).since(threads0));
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    private void openSearch(int round, List<String> jvmOpts, List<Path> bodies, int records, int clients, Path dir)
            throws Exception {
        try (OpenSearchProcess os = OpenSearchProcess.start(
                dir.resolve("opensearch-" + round),
                OpenSearchProcess.classPathOfThisBuild(),
                jvmOpts,
                Duration.ofMinutes(3))) {
            OpenSearchLoad load = new OpenSearchLoad(os.base());
            load.load(List.of(), 1, false); // the index template only
            double cpu0 = ProcessStats.of(os.pid()).cpuSeconds();
            long t0 = System.nanoTime();
            double acked = load.load(bodies, clients, false);
            long seen = waitForAll(() -> number(COUNT, load.get("/" + OpenSearchLoad.PATTERN + "/_count")), records);
            double searchable = (System.nanoTime() - t0) / 1e9;
            ProcessStats after = ProcessStats.of(os.pid());
            report(
                    "opensearch _bulk",
                    round,
                    records,
                    acked,
                    searchable,
                    seen,
                    after.cpuSeconds() - cpu0,
                    after.peakRssKiB(),
                    "");
        }
    }

    private static void report(
            String side,
            int round,
            int records,
            double acked,
            double searchable,
            long seen,
            double cpu,
            long rssKiB,
            String extra) {
        System.out.printf(
                Locale.ROOT,
                "round %d %-18s acknowledged %,8.0f records/s (%.1f s), searchable %,8.0f records/s (%.1f s, %,d seen);"
                        + " process CPU %.1f s = %.1f CPU-s per M records; peak RSS %d MiB %s%n",
                round,
                side,
                records / acked,
                acked,
                records / searchable,
                searchable,
                seen,
                cpu,
                cpu * 1e6 / records,
                rssKiB / 1024,
                extra);
    }

    private interface Counter {
        long count() throws Exception;
    }

    /** Polls every 100 ms until the count reaches {@code records} (at most 10 minutes); the last count. */
    private static long waitForAll(Counter counter, long records) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        long seen = counter.count();
        while (seen < records && System.nanoTime() < deadline) {
            Thread.sleep(100);
            seen = counter.count();
        }
        if (seen != records) {
            throw new IllegalStateException("searchable " + seen + " of " + records + " records after 10 minutes");
        }
        return seen;
    }

    private void postToLogpipe(String base, Path body, AtomicInteger retries) throws Exception {
        byte[] bytes = Files.readAllBytes(body);
        while (true) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/logs"))
                            .header("Authorization", "Bearer " + KEY)
                            .header("Content-Type", "application/x-ndjson")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return;
            }
            if (r.statusCode() != 429 && r.statusCode() != 503) {
                throw new IllegalStateException("ingest answered " + r.statusCode() + ": " + r.body());
            }
            retries.incrementAndGet();
            Thread.sleep(
                    1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
        }
    }

    private String get(String url, boolean withKey) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (withKey) {
            b.header("Authorization", "Bearer " + KEY);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + url + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    private static long number(Pattern p, String body) {
        Matcher m = p.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("no " + p + " in " + body);
        }
        return Long.parseLong(m.group(1));
    }

    /** The records as NDJSON bodies of {@code batch} lines for logpipe's native route, written to files. */
    private static List<Path> logpipeBodies(QueryRecords records, int batch, Path dir) throws IOException {
        Path out = Files.createDirectories(dir.resolve("logpipe-bodies"));
        RecordCodec codec = new RecordCodec();
        List<Path> files = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream(batch * 400);
        int lines = 0;
        while (records.hasNext()) {
            LogRecord r = records.next();
            body.writeBytes(codec.encode(r));
            body.write('\n');
            if (++lines == batch || !records.hasNext()) {
                Path f = out.resolve(String.format(Locale.ROOT, "body-%06d.ndjson", files.size()));
                Files.write(f, body.toByteArray());
                files.add(f);
                body.reset();
                lines = 0;
            }
        }
        return files;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
