package dev.logpipe.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.opensearch.OpenSearchShards;
import dev.logpipe.index.opensearch.OpenSearchStore;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.opensearch.node.OpenSearchProcess;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The query benchmark's questions through logpipe's API on the OpenSearch store against the same questions sent
 * straight to OpenSearch (issue 25's second goal: p99 no more than 1.2× + 2 ms). One OpenSearch 2.19 node (a child
 * JVM); {@link QueryRecords} written into it through logpipe's own {@link OpenSearchStore} (the indices, template and
 * documents the indexer makes), refreshed; a query process with {@code store: opensearch} over them. Each question is
 * asked both ways in turn (logpipe, direct, logpipe, …) after a warm-up, over HTTP, one client. The direct requests
 * are the OpenSearch query DSL a person would write for the question over the same indices (tenant filter, the range,
 * newest first by event time then record id, a date histogram, a terms aggregation).
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.OpenSearchQueryBench [--records 500000] [--runs 200]
 *   [--warmup 50] [--dir /tmp/logpipe-os-query-bench] [--os-jvm-opts "-Xms1g -Xmx1g"]
 *   [--query-yaml "limits:\n  exact_total_budget: 0s"] (added to the query service's config)
 * </pre>
 */
public final class OpenSearchQueryBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    private OpenSearchQueryBench() {}

    public static void main(String[] args) throws Exception {
        long records = 500_000;
        int runs = 200;
        int warmup = 50;
        Path dir = Path.of("/tmp/logpipe-os-query-bench");
        String osJvmOpts = "-Xms1g -Xmx1g";
        String queryYaml = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--os-jvm-opts" -> osJvmOpts = args[++i];
                case "--query-yaml" -> queryYaml = args[++i].replace("\\n", "\n");
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ForwarderThroughputBench.deleteRecursively(dir); // a node home left by an earlier run may not come up green
        try (OpenSearchProcess os = OpenSearchProcess.start(
                dir.resolve("opensearch"),
                OpenSearchProcess.DEFAULT_CLASS_PATH,
                List.of(osJvmOpts.split(" ")),
                Duration.ofMinutes(3))) {
            String prefix = "qb";
            OpenSearchSettings local = OpenSearchSettings.local(URI.create(os.base()));
            OpenSearchSettings settings = new OpenSearchSettings(
                    local.hosts(),
                    local.credential(),
                    Optional.empty(),
                    prefix,
                    1,
                    0,
                    Duration.ofSeconds(30),
                    local.bulkBytes(),
                    local.requestTimeout(),
                    OpenSearchSettings.DEFAULT_BULK_CONCURRENCY);
            long t0 = System.nanoTime();
            write(OpenSearchStore.open(settings), records);
            System.out.printf(
                    Locale.ROOT,
                    "wrote %,d records into OpenSearch in %.1f s%n",
                    records,
                    (System.nanoTime() - t0) / 1e9);
            String yaml = "store: opensearch\nopensearch:\n  hosts: [\"" + os.base() + "\"]\n  index_prefix: " + prefix
                    + "\n  replicas: 0\n" // one node: the query service's own indices stay yellow with a replica
                    + queryYaml;
            try (QueryProcess q = QueryBench.process(dir.resolve("query"), yaml)) {
                compare(q, os.base(), prefix, runs, warmup);
                engineAlone(q, settings, runs);
            }
        }
    }

    private static void write(OpenSearchStore store, long n) throws Exception {
        RecordCodec codec = new RecordCodec();
        QueryRecords records = new QueryRecords(n);
        Map<ShardId, List<IndexRecord>> batch = new LinkedHashMap<>();
        for (long i = 0; i < n; i++) {
            LogRecord r = records.next();
            Instant t = r.eventTime();
            byte[] line = codec.encode(r);
            batch.computeIfAbsent(
                            ShardId.records("bench", LocalDate.ofInstant(t, ZoneOffset.UTC)), k -> new ArrayList<>())
                    .add(new IndexRecord(codec.decode(line), t, t, line, 0, line.length));
            if ((i + 1) % 5000 == 0) {
                flush(store, batch);
            }
        }
        flush(store, batch);
        store.commit(Map.of("bench-0", n));
        store.refresh();
    }

    private static void flush(OpenSearchStore store, Map<ShardId, List<IndexRecord>> batch) throws Exception {
        for (Map.Entry<ShardId, List<IndexRecord>> e : batch.entrySet()) {
            store.write(e.getKey(), e.getValue());
        }
        batch.clear();
    }

    private static void compare(QueryProcess q, String os, String prefix, int runs, int warmup) throws Exception {
        long to = QueryBench.NOW.toEpochMilli();
        long from = to - 10L * 86_400_000L;
        String range = "&from=now-10d&to=now";
        String filter = "{\"term\":{\"tenant_id\":\"bench\"}},{\"range\":{\"event_time\":{\"gte\":" + from + ",\"lt\":"
                + to + ",\"format\":\"epoch_millis\"}}}";
        String sort = "\"sort\":[{\"event_time\":\"desc\"},{\"record_id\":\"desc\"}]";
        Map<String, String[]> pairs = new LinkedHashMap<>();
        pairs.put("needle", new String[] {
            "/api/v1/search?limit=100&q=" + QueryBench.enc("zqxneedle") + range,
            "{\"size\":100," + sort + ",\"query\":{\"bool\":{\"filter\":[" + filter
                    + "],\"must\":[{\"match\":{\"message\":\"zqxneedle\"}}]}}}"
        });
        pairs.put("level:ERROR newest 100", new String[] {
            "/api/v1/search?limit=100&q=" + QueryBench.enc("level:ERROR") + range,
            "{\"size\":100," + sort + ",\"query\":{\"bool\":{\"filter\":[" + filter
                    + ",{\"term\":{\"level\":\"ERROR\"}}]}}}"
        });
        pairs.put("1 h histogram", new String[] {
            "/api/v1/histogram?interval=1h" + range,
            "{\"size\":0,\"track_total_hits\":true,\"query\":{\"bool\":{\"filter\":[" + filter
                    + "]}},\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"event_time\",\"fixed_interval\":\"1h\"}}}}"
        });
        pairs.put("top 10 service", new String[] {
            "/api/v1/fields/service/top?size=10" + range,
            "{\"size\":0,\"query\":{\"bool\":{\"filter\":[" + filter
                    + "]}},\"aggs\":{\"t\":{\"terms\":{\"field\":\"service\",\"size\":10}}}}"
        });
        pairs.put("page 1", new String[] {
            "/api/v1/search?limit=100" + range,
            "{\"size\":100," + sort + ",\"query\":{\"bool\":{\"filter\":[" + filter + "]}}}"
        });
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + q.address().getPort();
        URI search = URI.create(os + "/" + prefix + "-records-*/_search");
        for (int i = 0; i < warmup; i++) {
            for (String[] p : pairs.values()) {
                QueryBench.get(http, base + p[0]);
                direct(http, search, p[1]);
            }
        }
        System.out.println(
                "| question | logpipe p50 / p99 ms (its took_ms p50) | OpenSearch direct p50 / p99 ms | p99 bound 1.2× + 2 ms |");
        System.out.println("|---|---|---|---|");
        List<String> engine = new ArrayList<>();
        for (Map.Entry<String, String[]> e : pairs.entrySet()) {
            String[] p = e.getValue();
            Map<String, double[]> before = engineRequests(http, base);
            long[] took = new long[runs + 1];
            int[] n = {0};
            Interleaved.Times t = Interleaved.run(
                    runs,
                    () -> took[Math.min(runs, n[0]++)] = JSON.readTree(QueryBench.get(http, base + p[0]))
                            .path("took_ms")
                            .asLong(),
                    () -> direct(http, search, p[1]));
            long[] inside = java.util.Arrays.copyOf(took, runs);
            java.util.Arrays.sort(inside);
            Map<String, double[]> after = engineRequests(http, base);
            StringBuilder perQuery = new StringBuilder();
            double waited = 0;
            for (Map.Entry<String, double[]> m : after.entrySet()) {
                double[] b = before.getOrDefault(m.getKey(), new double[2]);
                double sent = (m.getValue()[0] - b[0]) / runs;
                waited += (m.getValue()[1] - b[1]) / runs;
                if (sent > 0) {
                    perQuery.append(String.format(Locale.ROOT, "%s %.2f ", m.getKey(), sent));
                }
            }
            engine.add(String.format(
                    Locale.ROOT, "| %s | %s| %.1f | %d |", e.getKey(), perQuery, waited * 1000, inside[runs / 2]));
            double p99Ours = t.p99a();
            double p99Theirs = t.p99b();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.1f / %.1f (%d) | %.1f / %.1f | %.1f (%s) |%n",
                    e.getKey(),
                    t.p50a(),
                    p99Ours,
                    inside[runs / 2],
                    t.p50b(),
                    p99Theirs,
                    1.2 * p99Theirs + 2,
                    p99Ours <= 1.2 * p99Theirs + 2 ? "met" : "not met");
        }
        System.out.println();
        System.out.println(
                "| question | logpipe's requests to OpenSearch per query | ms waited for them per query (mean) "
                        + "| logpipe's took_ms p50 |");
        System.out.println("|---|---|---|---|");
        engine.forEach(System.out::println);
        perDayCost(http, os, prefix, pairs, runs);
    }

    /**
     * The 1 h histogram asked of the engine's read side in this JVM (one {@code callAll} over the ten day indices, as
     * the query service asks it) against the same histogram through the query service's HTTP API, interleaved: what
     * the service adds around the engine's round trip.
     */
    private static void engineAlone(QueryProcess q, OpenSearchSettings settings, int runs) throws Exception {
        OpenSearchShards shards = OpenSearchShards.open(settings);
        long to = QueryBench.NOW.toEpochMilli();
        long from = to - 10L * 86_400_000L;
        ShardQuery sq = ShardQuery.of("bench", ParsedQuery.ALL, from, to);
        ShardCall.HistogramOf call = new ShardCall.HistogramOf(sq, new Histogram(from, 3_600_000L, 240));
        HttpClient http = HttpClient.newHttpClient();
        String api = "http://127.0.0.1:" + q.address().getPort() + "/api/v1/histogram?interval=1h&from=now-10d&to=now";
        Interleaved.Ask alone = () -> {
            List<ShardSearcher> searchers = new ArrayList<>();
            for (ShardId id : shards.shards(ShardKind.RECORDS, "bench")) {
                searchers.add(shards.open(id).orElseThrow());
            }
            shards.callAll(searchers, call, System.nanoTime() + 30_000_000_000L);
        };
        for (int i = 0; i < 20; i++) {
            alone.ask();
            QueryBench.get(http, api);
        }
        Interleaved.Times t = Interleaved.run(runs, alone, () -> QueryBench.get(http, api));
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "1 h histogram: the engine's callAll in this JVM p50 / p99 %.1f / %.1f ms; through the query "
                        + "service's API %.1f / %.1f ms%n",
                t.p50a(),
                t.p99a(),
                t.p50b(),
                t.p99b());
    }

    /**
     * The query service's requests to OpenSearch so far by endpoint ({@code logpipe_query_engine_requests_seconds}):
     * count and seconds.
     */
    private static Map<String, double[]> engineRequests(HttpClient http, String base) throws Exception {
        Map<String, double[]> out = new java.util.TreeMap<>();
        String text = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        for (String line : text.split("\n")) {
            boolean count = line.startsWith("logpipe_query_engine_requests_seconds_count{");
            boolean sum = line.startsWith("logpipe_query_engine_requests_seconds_sum{");
            if (count || sum) {
                int at = line.indexOf("endpoint=\"") + "endpoint=\"".length();
                String endpoint = line.substring(at, line.indexOf('"', at));
                double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                out.computeIfAbsent(endpoint, k -> new double[2])[count ? 0 : 1] = v;
            }
        }
        if (out.isEmpty()) {
            System.out.println("no logpipe_query_engine_requests_seconds on " + base + "/metrics: "
                    + text.lines().filter(l -> l.contains("engine")).limit(3).toList() + " of "
                    + text.length() + " chars");
        }
        return out;
    }

    /**
     * What asking each day's index on its own costs inside OpenSearch: every question sent straight to the node as one
     * {@code _msearch} of one search per day index against the one search over all of them, interleaved.
     */
    private static void perDayCost(HttpClient http, String os, String prefix, Map<String, String[]> pairs, int runs)
            throws Exception {
        HttpResponse<String> listed = http.send(
                HttpRequest.newBuilder(URI.create(os + "/_cat/indices/" + prefix + "-records-*?h=index&format=json"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        List<String> indices = new ArrayList<>();
        JSON.readTree(listed.body()).forEach(n -> indices.add(n.path("index").asText()));
        URI search = URI.create(os + "/" + prefix + "-records-*/_search");
        URI msearch = URI.create(os + "/_msearch");
        System.out.println();
        System.out.println("| question, sent straight to OpenSearch | one `_msearch` of " + indices.size()
                + " per-day searches p50 / p99 ms | one `_search` over the days p50 / p99 ms "
                + "| that `_msearch` with a 30 s `timeout` in each search, against without (p50 / p99 ms) |");
        System.out.println("|---|---|---|---|");
        for (Map.Entry<String, String[]> e : pairs.entrySet()) {
            String body = e.getValue()[1];
            StringBuilder nd = new StringBuilder();
            for (String index : indices) {
                nd.append("{\"index\":\"")
                        .append(index)
                        .append("\"}\n")
                        .append(body)
                        .append('\n');
            }
            String ndjson = nd.toString();
            Interleaved.Times t = Interleaved.run(
                    runs, () -> send(http, msearch, ndjson, "application/x-ndjson"), () -> direct(http, search, body));
            String timed = ndjson.replace("\n{\"size\"", "\n{\"timeout\":\"30000ms\",\"size\"");
            Interleaved.Times withTimeout = Interleaved.run(
                    runs,
                    () -> send(http, msearch, timed, "application/x-ndjson"),
                    () -> send(http, msearch, ndjson, "application/x-ndjson"));
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f against %.1f / %.1f |%n",
                    e.getKey(),
                    t.p50a(),
                    t.p99a(),
                    t.p50b(),
                    t.p99b(),
                    withTimeout.p50a(),
                    withTimeout.p99a(),
                    withTimeout.p50b(),
                    withTimeout.p99b());
        }
    }

    private static void direct(HttpClient http, URI search, String body) throws Exception {
        send(http, search, body, "application/json");
    }

    private static void send(HttpClient http, URI uri, String body, String contentType) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(uri)
                        .header("Content-Type", contentType)
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("OpenSearch answered " + r.statusCode() + ": " + r.body());
        }
        JSON.readTree(r.body()); // parsed, as logpipe parses what it gets
    }
}
