package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.archive.tier.ArchiveCatalog;
import dev.logpipe.archive.tier.Archiver;
import dev.logpipe.archive.tier.CatalogEntry;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfigLoader;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Queries over archived days through the query service on HTTP, beside the same days hot: the query benchmark's
 * records ({@link QueryRecords}, {@code --records} over 10 days) written into hot day shards, copied, and the copy's
 * days archived with the real {@link Archiver} (its rate printed); then {@code --rounds} rounds, each starting a
 * query process on the archived copy with an empty cache (cold: the footers, token filters and blocks read from the
 * archive directory, restored into the cache) and running every query once cold, then {@code --warm} times right
 * after (while the background restore of what a scan read runs), then, 5 s later, {@code --warm} times warm,
 * interleaved with the same queries on a query process over the hot copy. Prints p50/max of cold and p50/p99 of the
 * others, in ms of the whole HTTP exchange, and the hits each answer had (equal on both tiers, or it stops).
 *
 * <pre>
 *   java -Xmx3g -cp bench/target/logpipe-bench.jar dev.logpipe.bench.ArchiveQueryBench
 *     [--records 2000000] [--rounds 5] [--warm 20] [--dir /tmp/logpipe-archive-query-bench] [--reuse]
 *     [--archive-runs 1] [--reuse-hot]
 * </pre>
 *
 * <p>{@code --archive-runs N} archives a fresh copy of the hot days N times (each run prints its rate and the archiving
 * thread's CPU time); {@code --reuse-hot} keeps the hot days an earlier run wrote into {@code --dir} and archives them
 * anew (for A/B runs of two archiver builds on the same days); {@code --rounds 0} stops after archiving.
 *
 * <p>The archive files are local and were just written or read, so they are in the page cache: "cold" is the query
 * process's cold (nothing in its memory or its cache directory), not a cold disk or a remote object store.
 */
public final class ArchiveQueryBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = QueryBench.KEY;

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int rounds = 5;
        int warm = 20;
        Path dir = Path.of("/tmp/logpipe-archive-query-bench");
        boolean reuse = false;
        int archiveRuns = 1;
        boolean reuseHot = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--warm" -> warm = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                case "--reuse-hot" -> reuseHot = true;
                case "--archive-runs" -> archiveRuns = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path hot = dir.resolve("hot");
        Path archived = dir.resolve("archived");
        Path ndjsonBytes = dir.resolve("ndjson-bytes");
        boolean hotKept = reuseHot && Files.isRegularFile(ndjsonBytes);
        if (!hotKept && (!reuse || !Files.isDirectory(archived))) {
            delete(dir);
            long t0 = System.nanoTime();
            long bytes = QueryBench.write(hot, records);
            Files.writeString(ndjsonBytes, Long.toString(bytes));
            System.out.printf(
                    Locale.ROOT,
                    "wrote %,d records (%,d bytes of NDJSON) into hot shards in %.1f s%n",
                    records,
                    bytes,
                    (System.nanoTime() - t0) / 1e9);
        }
        if (hotKept || !reuse || !Files.isDirectory(archived)) {
            long bytes = Long.parseLong(Files.readString(ndjsonBytes));
            for (int run = 0; run < archiveRuns; run++) {
                delete(archived);
                copy(hot, archived);
                archive(archived, bytes);
            }
        }
        if (rounds == 0) {
            return;
        }
        Map<String, String> queries = new LinkedHashMap<>();
        String range = "&from=now-10d&to=now";
        queries.put("needle (rare token, 12 hits)", "/api/v1/search?limit=100&q=" + enc("zqxneedle") + range);
        queries.put("level:ERROR newest 100", "/api/v1/search?limit=100&q=" + enc("level:ERROR") + range);
        queries.put("1 h histogram over all", "/api/v1/histogram?interval=1h" + range);
        Map<String, List<Long>> cold = new LinkedHashMap<>();
        Map<String, List<Long>> soon = new LinkedHashMap<>();
        Map<String, List<Long>> warmArchived = new LinkedHashMap<>();
        Map<String, List<Long>> warmHot = new LinkedHashMap<>();
        HttpClient http = HttpClient.newHttpClient();
        try (QueryProcess hotQuery = start(hot)) {
            String hotBase = "http://127.0.0.1:" + hotQuery.address().getPort();
            for (String uri : queries.values()) { // the hot process warmed once, as in QueryBench
                for (int i = 0; i < 20; i++) {
                    get(http, hotBase + uri);
                }
            }
            for (int round = 0; round < rounds; round++) {
                try (QueryProcess archivedQuery = start(archived)) {
                    String base = "http://127.0.0.1:" + archivedQuery.address().getPort();
                    for (Map.Entry<String, String> q : queries.entrySet()) {
                        long t0 = System.nanoTime();
                        String answer = get(http, base + q.getValue());
                        cold.computeIfAbsent(q.getKey(), k -> new ArrayList<>()).add(System.nanoTime() - t0);
                        String hotAnswer = get(http, hotBase + q.getValue());
                        if (round == 0) {
                            System.out.println(
                                    q.getKey() + ": " + summary(answer) + " archived, " + summary(hotAnswer) + " hot");
                        }
                        if (!summary(answer).equals(summary(hotAnswer))) {
                            throw new IllegalStateException(
                                    q.getKey() + " differs: " + summary(answer) + " vs " + summary(hotAnswer));
                        }
                        for (int i = 0; i < warm; i++) {
                            t0 = System.nanoTime();
                            get(http, base + q.getValue());
                            soon.computeIfAbsent(q.getKey(), k -> new ArrayList<>())
                                    .add(System.nanoTime() - t0);
                        }
                        Thread.sleep(5000); // the background restore of what the cold query scanned finishes
                        for (int i = 0; i < warm; i++) {
                            t0 = System.nanoTime();
                            get(http, base + q.getValue());
                            warmArchived
                                    .computeIfAbsent(q.getKey(), k -> new ArrayList<>())
                                    .add(System.nanoTime() - t0);
                            t0 = System.nanoTime();
                            get(http, hotBase + q.getValue());
                            warmHot.computeIfAbsent(q.getKey(), k -> new ArrayList<>())
                                    .add(System.nanoTime() - t0);
                        }
                    }
                }
            }
        }
        System.out.println("| query | archived cold p50 / max ms | archived right after p50 / p99 ms "
                + "| archived warm p50 / p99 ms | hot p50 / p99 ms |");
        System.out.println("|---|---|---|---|---|");
        for (String q : queries.keySet()) {
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.0f / %.0f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |%n",
                    q,
                    pct(cold.get(q), 0.5),
                    pct(cold.get(q), 1.0),
                    pct(soon.get(q), 0.5),
                    pct(soon.get(q), 0.99),
                    pct(warmArchived.get(q), 0.5),
                    pct(warmArchived.get(q), 0.99),
                    pct(warmHot.get(q), 0.5),
                    pct(warmHot.get(q), 0.99));
        }
    }

    /** Archives every day of {@code data} in place with the real archiver, printing its rate and the sizes. */
    private static void archive(Path data, long ndjsonBytes) throws Exception {
        InstantSource clock = InstantSource.fixed(QueryBench.NOW);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("archive-catalog.json"));
            Archiver archiver = new Archiver(
                    store,
                    new LiveShards(store),
                    objects,
                    catalog,
                    ArchiveWriter.Settings.DEFAULTS,
                    data.resolve("archive-work"),
                    clock,
                    Archiver.Checkpoint.NONE);
            long t0 = System.nanoTime();
            long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            long n = 0;
            long bytes = 0;
            for (ShardId day : store.shards(ShardKind.RECORDS)) {
                CatalogEntry e = archiver.archive(day).entry().orElseThrow();
                n += e.records();
                bytes += e.bytes();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            double cpu = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "archived %,d records in %.1f s (%,.0f records/s, one thread: read from Lucene, write, "
                            + "upload to a directory, read back and verify, catalogue, delete the hot day; "
                            + "the thread's CPU %.1f s = %,.0f records per CPU-second); "
                            + "%,d archive bytes = %.3f of the NDJSON%n",
                    n,
                    s,
                    n / s,
                    cpu,
                    n / cpu,
                    bytes,
                    (double) bytes / ndjsonBytes);
        }
    }

    private static QueryProcess start(Path data) throws Exception {
        String yaml = """
                listen: 127.0.0.1:0
                data_dir: %s
                tenants:
                  - id: bench
                    api_key_sha256: [%s]
                    max_concurrent_queries: 64
                archive:
                  cache_days: 10
                """.formatted(data, ConfiguredKeys.sha256(KEY));
        return QueryProcess.start(new QueryConfigLoader().parse(yaml, "bench"), InstantSource.fixed(QueryBench.NOW));
    }

    /** What must be equal on both tiers: the hits' record ids, or a histogram's total and buckets. */
    private static String summary(String answer) throws Exception {
        JsonNode j = JSON.readTree(answer);
        if (j.has("hits")) {
            List<String> ids = new ArrayList<>();
            j.get("hits").forEach(h -> ids.add(h.get("record_id").asText()));
            return ids.size() + " hits " + Integer.toHexString(ids.hashCode());
        }
        return "total " + j.path("total").asLong() + " buckets "
                + Integer.toHexString(j.path("buckets").hashCode());
    }

    private static double pct(List<Long> ns, double p) {
        long[] a = ns.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        int i = (int) Math.min(a.length - 1, Math.max(0, Math.ceil(a.length * p) - 1));
        return a[i] / 1e6;
    }

    private static String get(HttpClient http, String uri) throws Exception {
        return QueryBench.get(http, uri);
    }

    private static String enc(String s) {
        return QueryBench.enc(s);
    }

    private static void copy(Path from, Path to) throws Exception {
        try (var s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void delete(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (var s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
