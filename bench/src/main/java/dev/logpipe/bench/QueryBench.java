package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Query latency over HTTP, in process: N ~290-byte records over 10 days (one tenant, 10 day shards) written through
 * the index module's real write path and committed, then the query service (read-only committed shards, as the
 * separate process runs) on 127.0.0.1. Warm-up: every query {@code --warmup} times, in turn; then each query
 * {@code --runs} timed runs one after another; prints p50/p99/max in ms of the whole HTTP exchange.
 *
 * <pre>
 *   java -Xmx2g -cp bench/target/logpipe-bench.jar dev.logpipe.bench.QueryBench
 *     [--records 2000000] [--runs 200] [--warmup 100] [--dir /tmp/logpipe-query-bench] [--reuse]
 *     [--deep-pages 100] [--clients 0] [--client-requests 20] [--only needle]
 * </pre>
 *
 * <p>{@code --reuse} keeps the data of an earlier run with the same {@code --dir} (written once, e.g. 10 M records).
 * {@code --deep-pages N} pages N pages of 100 deep for the deep page (and times page 1 beside it). {@code --clients
 * N} then runs N concurrent clients, each sending {@code --client-requests} of the queries in turn, and counts
 * errors.
 */
public final class QueryBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY = "bench-key-0123456789";
    static final Instant NOW = Instant.parse("2026-12-11T00:00:00Z");

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int runs = 200;
        int warmup = 100;
        Path dir = Path.of("/tmp/logpipe-query-bench");
        boolean reuse = false;
        int deepPages = 100;
        int clients = 0;
        int clientRequests = 20;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                case "--deep-pages" -> deepPages = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--client-requests" -> clientRequests = Integer.parseInt(args[++i]);
                case "--only" -> only = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path data = dir.resolve("data");
        if (!reuse || !Files.isDirectory(data)) {
            if (Files.exists(dir)) {
                try (var s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
            long t0 = System.nanoTime();
            long bytes = write(data, records);
            System.out.printf(
                    Locale.ROOT,
                    "wrote %,d records (%,d bytes, %.0f B/record) in %.1f s%n",
                    records,
                    bytes,
                    (double) bytes / records,
                    (System.nanoTime() - t0) / 1e9);
        }
        String yaml = """
                listen: 127.0.0.1:0
                data_dir: %s
                tenants:
                  - id: bench
                    api_key_sha256: [%s]
                    max_concurrent_queries: 64
                """.formatted(data, ConfiguredKeys.sha256(KEY));
        try (QueryProcess q =
                QueryProcess.start(new QueryConfigLoader().parse(yaml, "bench"), InstantSource.fixed(NOW))) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + q.address().getPort();
            String range = "&from=now-10d&to=now";
            // a cursor at depth: page deepPages + 1 (deepPages * 100 hits deep)
            String pageBase = "/api/v1/search?limit=100" + range;
            String cursor = null;
            long walk = System.nanoTime();
            for (int i = 0; i < deepPages; i++) {
                JsonNode j = JSON.readTree(get(http, base + pageBase + (cursor == null ? "" : "&cursor=" + cursor)));
                cursor = j.get("next_cursor").asText();
            }
            System.out.printf(
                    Locale.ROOT, "paged %,d pages of 100 in %.1f s%n", deepPages, (System.nanoTime() - walk) / 1e9);
            Map<String, String> queries = new LinkedHashMap<>();
            queries.put("needle (rare token, 12 hits)", "/api/v1/search?limit=100&q=" + enc("zqxneedle") + range);
            queries.put("level:ERROR newest 100", "/api/v1/search?limit=100&q=" + enc("level:ERROR") + range);
            queries.put("1 h histogram over all", "/api/v1/histogram?interval=1h" + range);
            queries.put("top 10 values of service", "/api/v1/fields/service/top?size=10" + range);
            queries.put("search-after page 1 (limit 100, no cursor)", pageBase);
            queries.put(
                    String.format(Locale.ROOT, "search-after page %,d (depth %,d)", deepPages + 1, deepPages * 100L),
                    pageBase + "&cursor=" + cursor);
            JsonNode needle = JSON.readTree(get(http, base + queries.get("needle (rare token, 12 hits)")));
            System.out.println("needle hits: " + needle.get("hits").size() + ", histogram total: "
                    + JSON.readTree(get(http, base + queries.get("1 h histogram over all")))
                            .get("total")
                            .asLong());
            System.out.println("| query | p50 ms | p99 ms | max ms |");
            System.out.println("|---|---|---|---|");
            String filter = only;
            queries.keySet().removeIf(k -> filter != null && !k.contains(filter));
            for (int i = 0; i < warmup; i++) { // warm-up: every query in turn, so none is measured while others compile
                for (String uri : queries.values()) {
                    get(http, base + uri);
                }
            }
            for (Map.Entry<String, String> e : queries.entrySet()) {
                long[] ns = new long[runs];
                for (int i = 0; i < runs; i++) {
                    long t0 = System.nanoTime();
                    get(http, base + e.getValue());
                    ns[i] = System.nanoTime() - t0;
                }
                Arrays.sort(ns);
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.1f | %.1f | %.1f |%n",
                        e.getKey(),
                        ns[runs / 2] / 1e6,
                        ns[(int) Math.ceil(runs * 0.99) - 1] / 1e6,
                        ns[runs - 1] / 1e6);
            }
            if (clients > 0) {
                concurrent(http, base, List.copyOf(queries.values()), clients, clientRequests);
            }
        }
    }

    /** {@code clients} threads at once, each sending {@code each} requests (the queries in turn); errors counted. */
    static void concurrent(HttpClient http, String base, List<String> queries, int clients, int each) throws Exception {
        long[] ns = new long[clients * each];
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    long t0 = System.nanoTime();
                    try {
                        get(http, base + queries.get((client + i) % queries.size()));
                    } catch (Exception e) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, e.toString());
                    }
                    ns[client * each + i] = System.nanoTime() - t0;
                }
            });
            t.start();
            threads.add(t);
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        Arrays.sort(ns);
        System.out.printf(
                Locale.ROOT,
                "%d concurrent clients x %d requests (the queries above in turn): %d errors%s, %.1f s, %.0f req/s,"
                        + " p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                clients,
                each,
                errors.get(),
                firstError.get() == null ? "" : " (first: " + firstError.get() + ")",
                secs,
                ns.length / secs,
                ns[ns.length / 2] / 1e6,
                ns[(int) Math.ceil(ns.length * 0.99) - 1] / 1e6,
                ns[ns.length - 1] / 1e6);
    }

    static String get(HttpClient http, String uri) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .header("Authorization", "Bearer " + KEY)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /**
     * The query set's day shards under {@code dir/data}: {@code records} of them written afresh (the directory
     * emptied first), or those already there when {@code reuse}.
     */
    static Path data(Path dir, long records, boolean reuse) throws Exception {
        Path data = dir.resolve("data");
        if (!reuse || !Files.isDirectory(data)) {
            if (Files.exists(dir)) {
                try (var s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
            write(data, records);
        }
        return data;
    }

    /** A query process over {@code data} for the bench tenant at {@link #NOW}; {@code extra} is YAML added. */
    static QueryProcess process(Path data, String extra) throws Exception {
        String yaml = """
                listen: 127.0.0.1:0
                data_dir: %s
                tenants:
                  - id: bench
                    api_key_sha256: [%s]
                    max_concurrent_queries: 8
                """.formatted(data, ConfiguredKeys.sha256(KEY)) + extra;
        return QueryProcess.start(new QueryConfigLoader().parse(yaml, "bench"), InstantSource.fixed(NOW));
    }

    /** Writes {@link QueryRecords} (n of them) into day shards under {@code data}; returns their NDJSON bytes. */
    static long write(Path data, long n) throws Exception {
        RecordCodec codec = new RecordCodec();
        QueryRecords records = new QueryRecords(n);
        long bytes = 0;
        try (LuceneStore store = new LuceneStore(
                new ShardLayout(data),
                new StoreSettings(256, 64, 1 << 20, StoreSettings.Compression.BEST_SPEED),
                InstantSource.system())) {
            Map<ShardId, List<IndexRecord>> batch = new LinkedHashMap<>();
            for (long i = 0; i < n; i++) {
                LogRecord r = records.next();
                Instant t = r.eventTime();
                byte[] line = codec.encode(r);
                bytes += line.length;
                ShardId id = ShardId.records("bench", LocalDate.ofInstant(t, ZoneOffset.UTC));
                batch.computeIfAbsent(id, k -> new ArrayList<>())
                        .add(new IndexRecord(codec.decode(line), t, t, line, 0, line.length));
                if ((i + 1) % 5000 == 0) {
                    for (Map.Entry<ShardId, List<IndexRecord>> e : batch.entrySet()) {
                        store.write(e.getKey(), e.getValue());
                    }
                    batch.clear();
                }
                if ((i + 1) % 500_000 == 0) {
                    store.commit(Map.of("bench-0", i + 1));
                }
            }
            for (Map.Entry<ShardId, List<IndexRecord>> e : batch.entrySet()) {
                store.write(e.getKey(), e.getValue());
            }
            store.commit(Map.of("bench-0", n));
        }
        return bytes;
    }
}
