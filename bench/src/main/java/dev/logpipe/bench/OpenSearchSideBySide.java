package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.opensearch.node.OpenSearchProcess;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfigLoader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * logpipe beside OpenSearch 2.19.6 in one run: the same {@link QueryRecords} written into logpipe's day shards (as
 * {@link QueryBench} does, then the query service in this JVM) and bulk-loaded into a single OpenSearch node in a
 * child JVM ({@link OpenSearchProcess}, {@link OpenSearchLoad}); then the same five questions over HTTP on 127.0.0.1
 * to each, one query at a time (logpipe's runs, then OpenSearch's): {@code --warmup} untimed runs, {@code --runs}
 * timed ones one after another, the whole exchange timed. Checks that both answer the same (needle ids, deep-page
 * first id, histogram total, top values) before timing, and prints p50/p99/max of each and the ratio.
 *
 * <pre>
 *   java -Xms1g -Xmx2g -cp bench/target/logpipe-bench.jar dev.logpipe.bench.OpenSearchSideBySide
 *     [--records 2000000] [--runs 200] [--warmup 100] [--dir /tmp/logpipe-os-bench] [--reuse]
 *     [--os-jvm-opts "-Xms1g -Xmx2g"] [--os-classpath CP] [--os-bulk-docs 5000] [--os-bulk-clients 2]
 *     [--os-force-merge 0] [--os-index-sort] [--os-request-cache]
 * </pre>
 */
public final class OpenSearchSideBySide {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "bench-key-0123456789";
    private static final String FROM =
            QueryBench.NOW.minusMillis(QueryRecords.SPAN_MS).toString();
    private static final String TO = QueryBench.NOW.toString();

    private OpenSearchSideBySide() {}

    public static void main(String[] args) throws Exception {
        SideBySideOptions o = SideBySideOptions.parse(args);
        Path data = o.dir().resolve("logpipe");
        Path home = o.dir().resolve("opensearch");
        Path bulk = o.dir().resolve("bulk");
        String records = o.records() + " records";
        if (!reusable(o, data, records)) {
            deleteTree(data);
            long t0 = System.nanoTime();
            long bytes = QueryBench.write(data, o.records());
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "logpipe: wrote %,d records (%,d bytes NDJSON, %.0f B/record) in %.1f s (%.0f records/s)%n",
                    o.records(),
                    bytes,
                    (double) bytes / o.records(),
                    s,
                    o.records() / s);
            Files.writeString(marker(data), records);
        }
        String bodies = records + ", " + o.bulkDocs() + " per body";
        if (!reusable(o, bulk, bodies)) {
            deleteTree(bulk);
            long t0 = System.nanoTime();
            OpenSearchLoad.prepare(o.records(), o.bulkDocs(), bulk);
            System.out.printf(
                    Locale.ROOT, "opensearch: wrote the _bulk bodies in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            Files.writeString(marker(bulk), bodies);
        }
        String index = bodies + ", index sort " + o.indexSort() + ", force-merge " + o.forceMerge();
        boolean loadOpenSearch = !reusable(o, home, index);
        if (loadOpenSearch) {
            deleteTree(home);
        }
        try (OpenSearchProcess os =
                OpenSearchProcess.start(home, o.osClassPath(), o.osJvmOpts(), Duration.ofMinutes(3))) {
            OpenSearchLoad load = new OpenSearchLoad(os.base());
            if (loadOpenSearch) {
                List<Path> files;
                try (var l = Files.list(bulk)) {
                    files = l.filter(f -> f.getFileName().toString().startsWith("bulk-"))
                            .sorted()
                            .toList();
                }
                double s = load.load(files, o.bulkClients(), o.indexSort());
                System.out.printf(
                        Locale.ROOT,
                        "opensearch: bulk-loaded %,d records with explicit _id in %.1f s (%.0f docs/s; %d docs per"
                                + " _bulk, %d in flight, refresh_interval 1s%s)%n",
                        o.records(),
                        s,
                        o.records() / s,
                        o.bulkDocs(),
                        o.bulkClients(),
                        o.indexSort() ? ", index sort event_time desc, record_id desc" : "");
                double settled = load.settle(o.forceMerge());
                System.out.printf(
                        Locale.ROOT,
                        "opensearch: refresh%s + flush + no merge running in %.1f s%n",
                        o.forceMerge() > 0 ? " + force-merge to " + o.forceMerge() + " segment(s)" : "",
                        settled);
                Files.writeString(marker(home), index);
            }
            describe(data, load);
            String yaml = """
                    listen: 127.0.0.1:0
                    data_dir: %s
                    tenants:
                      - id: bench
                        api_key_sha256: [%s]
                        max_concurrent_queries: 64
                    """.formatted(data, ConfiguredKeys.sha256(KEY));
            try (QueryProcess q = QueryProcess.start(
                    new QueryConfigLoader().parse(yaml, "bench"), InstantSource.fixed(QueryBench.NOW))) {
                run(
                        o,
                        HttpClient.newHttpClient(),
                        "http://127.0.0.1:" + q.address().getPort(),
                        os.base() + "/" + OpenSearchLoad.PATTERN + "/_search"
                                + (o.requestCache() ? "" : "?request_cache=false"));
            }
        }
    }

    private static void run(SideBySideOptions o, HttpClient http, String lp, String osSearch) throws Exception {
        String range = "&from=now-10d&to=now";
        String filter = "{\"range\": {\"event_time\": {\"gte\": \"" + FROM + "\", \"lte\": \"" + TO + "\"}}}";
        String newest = "\"sort\": [{\"event_time\": \"desc\"}, {\"record_id\": \"desc\"}]";
        // page 101 (hits 10,001-10,100) on both sides: 100 pages read first
        String lpPage = lp + "/api/v1/search?limit=100" + range;
        String cursor = null;
        String osPageBase = "{\"size\": 100, \"query\": {\"bool\": {\"filter\": [" + filter + "]}}, " + newest;
        String after = null;
        for (int i = 0; i < 100; i++) {
            cursor = JSON.readTree(get(http, lpPage + (cursor == null ? "" : "&cursor=" + cursor)))
                    .get("next_cursor")
                    .asText();
            JsonNode hits = JSON.readTree(post(http, osSearch, osPageBase + (after == null ? "" : after) + "}"))
                    .at("/hits/hits");
            after = ", \"search_after\": " + hits.get(hits.size() - 1).get("sort");
        }
        List<Pair> pairs = List.of(
                new Pair(
                        "needle (rare token, 12 hits)",
                        lp + "/api/v1/search?limit=100&q=" + enc(QueryRecords.NEEDLE) + range,
                        "{\"size\": 100, \"query\": {\"bool\": {\"must\": [{\"match\": {\"message\": \""
                                + QueryRecords.NEEDLE + "\"}}], \"filter\": [" + filter + "]}}, " + newest + "}"),
                new Pair(
                        "level:ERROR newest 100",
                        lp + "/api/v1/search?limit=100&q=" + enc("level:ERROR") + range,
                        "{\"size\": 100, \"query\": {\"bool\": {\"filter\": [{\"term\": {\"level\": \"ERROR\"}}, "
                                + filter + "]}}, " + newest + "}"),
                new Pair(
                        "1 h histogram over all",
                        lp + "/api/v1/histogram?interval=1h" + range,
                        "{\"size\": 0, \"track_total_hits\": true, \"query\": {\"bool\": {\"filter\": [" + filter
                                + "]}}, \"aggs\": {\"h\": {\"date_histogram\": {\"field\": \"event_time\","
                                + " \"fixed_interval\": \"1h\"}}}}"),
                new Pair(
                        "top 10 values of service",
                        lp + "/api/v1/fields/service/top?size=10" + range,
                        "{\"size\": 0, \"query\": {\"bool\": {\"filter\": [" + filter + "]}}, \"aggs\": {\"t\":"
                                + " {\"terms\": {\"field\": \"service\", \"size\": 10}}}}"),
                new Pair("search-after page at depth 10,000", lpPage + "&cursor=" + cursor, osPageBase + after + "}"));
        SideBySideChecks.agree(JSON, pairs, u -> get(http, u), b -> post(http, osSearch, b));
        System.out.println(
                "| query | logpipe p50 / p99 / max ms | OpenSearch p50 / p99 / max ms | logpipe/OpenSearch p50"
                        + " | logpipe/OpenSearch p99 |");
        System.out.println("|---|---|---|---|---|");
        for (Pair p : pairs) {
            Latency a = time(o, () -> get(http, p.logpipeUri()));
            Latency b = time(o, () -> post(http, osSearch, p.openSearchBody()));
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %s | %.2f | %.2f |%n",
                    p.name(),
                    a,
                    b,
                    a.p50() / b.p50(),
                    a.p99() / b.p99());
        }
    }

    /** One question, as each side asks it. */
    record Pair(String name, String logpipeUri, String openSearchBody) {}

    /** Milliseconds. */
    record Latency(double p50, double p99, double max) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", p50, p99, max);
        }
    }

    private static Latency time(SideBySideOptions o, Callable<String> call) throws Exception {
        for (int i = 0; i < o.warmup(); i++) {
            call.call();
        }
        long[] ns = new long[o.runs()];
        for (int i = 0; i < o.runs(); i++) {
            long t0 = System.nanoTime();
            call.call();
            ns[i] = System.nanoTime() - t0;
        }
        Arrays.sort(ns);
        int n = ns.length;
        return new Latency(ns[n / 2] / 1e6, ns[(int) Math.ceil(n * 0.99) - 1] / 1e6, ns[n - 1] / 1e6);
    }

    private static void describe(Path data, OpenSearchLoad load) throws Exception {
        long lpSegments;
        long lpBytes;
        try (var s = Files.walk(data)) {
            List<Path> files = s.filter(Files::isRegularFile).toList();
            lpSegments = files.stream()
                    .filter(f -> f.getFileName().toString().endsWith(".si"))
                    .count();
            long sum = 0;
            for (Path f : files) {
                sum += Files.size(f);
            }
            lpBytes = sum;
        }
        JsonNode segments =
                JSON.readTree(load.get("/_cat/segments/" + OpenSearchLoad.PATTERN + "?format=json&h=index,segment"));
        JsonNode indices = JSON.readTree(load.get(
                "/_cat/indices/" + OpenSearchLoad.PATTERN + "?format=json&bytes=b&h=index,docs.count,store.size"));
        long osBytes = 0;
        long osDocs = 0;
        TreeSet<String> names = new TreeSet<>();
        for (JsonNode i : indices) {
            osBytes += i.get("store.size").asLong();
            osDocs += i.get("docs.count").asLong();
            names.add(i.get("index").asText());
        }
        System.out.printf(
                Locale.ROOT,
                "on disk: logpipe %,d bytes in %d segments; opensearch %,d docs, %,d bytes in %d segments over %d"
                        + " indices (%s .. %s)%n",
                lpBytes,
                lpSegments,
                osDocs,
                osBytes,
                segments.size(),
                names.size(),
                names.isEmpty() ? "-" : names.first(),
                names.isEmpty() ? "-" : names.last());
    }

    private static String get(HttpClient http, String uri) throws Exception {
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

    private static String post(HttpClient http, String uri, String body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " " + body + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** With {@code --reuse}: {@code dir} was made by an earlier run with the same {@code what}. */
    private static boolean reusable(SideBySideOptions o, Path dir, String what) throws Exception {
        return o.reuse()
                && Files.isRegularFile(marker(dir))
                && Files.readString(marker(dir)).equals(what);
    }

    private static Path marker(Path dir) {
        return dir.resolveSibling(dir.getFileName() + ".done");
    }

    private static void deleteTree(Path dir) throws Exception {
        Files.deleteIfExists(marker(dir));
        if (Files.exists(dir)) {
            try (var s = Files.walk(dir)) {
                List<Path> all =
                        new ArrayList<>(s.sorted(Comparator.reverseOrder()).toList());
                for (Path p : all) {
                    Files.delete(p);
                }
            }
        }
    }
}
