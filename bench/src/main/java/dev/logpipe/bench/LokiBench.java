package dev.logpipe.bench;

import dev.logpipe.query.QueryProcess;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * LogQL through {@code /loki/api/v1/query_range} against the native API on the same question (issue 27's goals): a
 * count per hour and a count per level per hour over all 2 M records against {@code /api/v1/histogram}, and the
 * newest 100 lines of a needle and of {@code level:ERROR} against {@code /api/v1/search}. Each pair is timed
 * interleaved (LogQL, native, LogQL, …) after a warm-up, over HTTP, one client; p50 and p99 in ms and their ratio.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.LokiBench [--records 2000000] [--runs 5]
 *   [--warmup 1] [--dir /tmp/logpipe-loki-bench] [--reuse] [--without needle] [--only "per level"]
 * </pre>
 */
public final class LokiBench {
    private LokiBench() {}

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int runs = 5; // a line filter reads every record: at 2 M records, one run takes the whole query_timeout
        int warmup = 1;
        Path dir = Path.of("/tmp/logpipe-loki-bench");
        boolean reuse = false;
        String without = null;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                case "--without" -> without = args[++i];
                case "--only" -> only = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path data = QueryBench.data(dir, records, reuse);
        long end = QueryBench.NOW.toEpochMilli() * 1_000_000L;
        long start = end - 10L * 86_400_000L * 1_000_000L;
        String span = "&start=" + start + "&end=" + end;
        String native10d = "&from=now-10d&to=now";
        Map<String, String[]> pairs = new LinkedHashMap<>();
        pairs.put("count per hour, all records", new String[] {
            "/loki/api/v1/query_range?step=3600&query="
                    + QueryBench.enc("sum(count_over_time({region=\"eu-west-1\"}[1h]))")
                    + span,
            "/api/v1/histogram?interval=1h" + native10d
        });
        pairs.put("count per level per hour", new String[] {
            "/loki/api/v1/query_range?step=3600&query="
                    + QueryBench.enc("sum by (level) (count_over_time({region=\"eu-west-1\"}[1h]))")
                    + span,
            "/api/v1/histogram?interval=1h" + native10d
        });
        pairs.put("needle, newest 100 lines", new String[] {
            "/loki/api/v1/query_range?limit=100&query=" + QueryBench.enc("{region=\"eu-west-1\"} |= \"zqxneedle\"")
                    + span,
            "/api/v1/search?limit=100&q=" + QueryBench.enc("zqxneedle") + native10d
        });
        pairs.put("level ERROR, newest 100 lines", new String[] {
            "/loki/api/v1/query_range?limit=100&query=" + QueryBench.enc("{level=\"ERROR\"}") + span,
            "/api/v1/search?limit=100&q=" + QueryBench.enc("level:ERROR") + native10d
        });
        if (without != null) {
            String w = without; // e.g. the needle: each run waits out the whole query_timeout
            pairs.keySet().removeIf(k -> k.contains(w));
        }
        if (only != null) {
            String o = only; // one question, e.g. under a profiler
            pairs.keySet().removeIf(k -> !k.contains(o));
        }
        try (QueryProcess q = QueryBench.process(data, "")) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + q.address().getPort();
            for (int i = 0; i < warmup; i++) {
                for (String[] p : pairs.values()) {
                    QueryBench.get(http, base + p[0]);
                    QueryBench.get(http, base + p[1]);
                }
            }
            System.out.println("| question | LogQL p50 / p99 ms | native p50 / p99 ms | LogQL / native (p50) |");
            System.out.println("|---|---|---|---|");
            for (Map.Entry<String, String[]> e : pairs.entrySet()) {
                String[] p = e.getValue();
                Interleaved.Times t = Interleaved.run(
                        runs, () -> QueryBench.get(http, base + p[0]), () -> QueryBench.get(http, base + p[1]));
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.1f / %.1f | %.1f / %.1f | %.2f |%n",
                        e.getKey(),
                        t.p50a(),
                        t.p99a(),
                        t.p50b(),
                        t.p99b(),
                        t.p50a() / t.p50b());
            }
        }
    }
}
