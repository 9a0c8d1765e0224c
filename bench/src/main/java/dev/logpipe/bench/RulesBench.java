package dev.logpipe.bench;

import dev.logpipe.query.QueryProcess;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Search latency with 100 rules evaluated every 15 s beside it against none (issue 27's third goal): the query
 * benchmark's 2 M records, a query process without rules and one with 100 rules (10 groups of 10 at {@code interval:
 * 15s}: alerting rules that never fire and recording rules, selectors on service and level, some with a line filter,
 * windows of 5 m), run in turn (off, on, on, off). In each, after a warm-up, one client asks the native queries in a
 * loop for {@code --seconds}; p50 and p99 per query, and how many rule evaluations the audit log shows meanwhile.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.RulesBench [--records 2000000] [--seconds 60]
 *   [--dir /tmp/logpipe-rules-bench] [--reuse]
 * </pre>
 */
public final class RulesBench {
    private static final String[] SERVICES = {
        "api", "billing", "auth", "search", "checkout", "gateway", "worker", "cron"
    };

    private RulesBench() {}

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int seconds = 60;
        Path dir = Path.of("/tmp/logpipe-rules-bench");
        boolean reuse = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path data = QueryBench.data(dir, records, reuse);
        Path rules = dir.resolve("bench-rules.yaml");
        Files.writeString(rules, rules());
        String withRules = """
                alerting:
                  webhook_url: http://127.0.0.1:9/never-fires
                  rules:
                    - tenant: bench
                      file: %s
                """.formatted(rules);
        String range = "&from=now-10d&to=now";
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("needle", "/api/v1/search?limit=100&q=" + QueryBench.enc("zqxneedle") + range);
        queries.put("level:ERROR newest 100", "/api/v1/search?limit=100&q=" + QueryBench.enc("level:ERROR") + range);
        queries.put("1 h histogram", "/api/v1/histogram?interval=1h" + range);
        queries.put("top service", "/api/v1/fields/service/top?size=10" + range);
        queries.put("page 1", "/api/v1/search?limit=100" + range);
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String phase : List.of("off", "on", "on", "off")) {
            try (QueryProcess q = QueryBench.process(data, phase.equals("on") ? withRules : "")) {
                Path audit = data.resolve("audit").resolve("query-audit.jsonl");
                long rulesBefore = ruleLines(audit);
                Map<String, long[]> times = run(q, queries, seconds);
                long evaluated = ruleLines(audit) - rulesBefore;
                for (Map.Entry<String, long[]> e : times.entrySet()) {
                    long[] t = e.getValue();
                    Arrays.sort(t);
                    rows.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                            .add(String.format(
                                    Locale.ROOT,
                                    "%s %.1f / %.1f (%d)",
                                    phase,
                                    t[t.length / 2] / 1e6,
                                    t[(int) Math.ceil(t.length * 0.99) - 1] / 1e6,
                                    t.length));
                }
                System.out.printf(Locale.ROOT, "phase %s: %d rule evaluations in the audit log%n", phase, evaluated);
            }
        }
        System.out.println("| query | p50 / p99 ms (runs), per phase |");
        System.out.println("|---|---|");
        rows.forEach((k, v) -> System.out.println("| " + k + " | " + String.join(" · ", v) + " |"));
    }

    /** 100 rules in 10 groups of 10, every 15 s. */
    static String rules() {
        StringBuilder b = new StringBuilder("groups:\n");
        for (int g = 0; g < 10; g++) {
            b.append("  - name: group-").append(g).append("\n    interval: 15s\n    rules:\n");
            for (int r = 0; r < 10; r++) {
                String service = SERVICES[(g * 10 + r) % SERVICES.length];
                if (r % 2 == 0) {
                    String filter = r % 4 == 0 ? " |= \"timeout\"" : "";
                    b.append("      - alert: Errors_")
                            .append(g)
                            .append('_')
                            .append(r)
                            .append('\n');
                    b.append("        expr: sum by (service) (count_over_time({service=\"")
                            .append(service)
                            .append("\", level=\"ERROR\"}")
                            .append(filter)
                            .append(" [5m])) > 1000000\n");
                } else {
                    b.append("      - record: bench:lines_")
                            .append(g)
                            .append('_')
                            .append(r)
                            .append(":count5m\n");
                    b.append("        expr: sum by (level) (count_over_time({service=\"")
                            .append(service)
                            .append("\"}[5m]))\n");
                }
            }
        }
        return b.toString();
    }

    private static Map<String, long[]> run(QueryProcess q, Map<String, String> queries, int seconds) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + q.address().getPort();
        for (int i = 0; i < 30; i++) {
            for (String path : queries.values()) {
                QueryBench.get(http, base + path);
            }
        }
        Map<String, List<Long>> times = new LinkedHashMap<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            for (Map.Entry<String, String> e : queries.entrySet()) {
                long t0 = System.nanoTime();
                QueryBench.get(http, base + e.getValue());
                times.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(System.nanoTime() - t0);
            }
        }
        Map<String, long[]> out = new LinkedHashMap<>();
        times.forEach((k, v) -> out.put(k, v.stream().mapToLong(Long::longValue).toArray()));
        return out;
    }

    private static long ruleLines(Path audit) throws Exception {
        if (!Files.exists(audit)) {
            return 0;
        }
        try (var lines = Files.lines(audit)) {
            return lines.filter(l -> l.contains("\"endpoint\":\"rule\"")).count();
        }
    }
}
