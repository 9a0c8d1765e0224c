package dev.logpipe.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The attacks of the integrity issue, re-run against a real {@code logpipe standalone} child: while tenant
 * {@code victim} searches without pause, tenant {@code default} (the attacker, with a valid key) floods field names,
 * posts huge messages and asks for huge pages and contexts in parallel, runs 50 heavy queries at once, posts event
 * times out of range, floods the audit log with long queries and wrong keys, and holds every live tail; then the child
 * is killed with SIGKILL and restarted on the same data. For each attack it prints whether the process still
 * answered, the victim's search p50/p99/max and failures during it, and what the attack itself got (status codes,
 * wall times, growth of the audit logs, findability of what was acknowledged).
 *
 * <pre>java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.AttackBench [--jar server/target/logpipe.jar]
 *     [--jvm-opts "-Xms256m -Xmx768m -XX:+UseSerialGC"] [--seconds 20] [--only flood,huge,...]
 *     [--config standalone.yaml]</pre>
 *
 * <p>Past 500 lines: one attack after another, each a short method, kept in one file so the attack list in
 * docs/benchmarks.md is this file read top to bottom.
 */
public final class AttackBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ATTACKER_KEY = "attack-key-0123456789abcdef";
    private static final String ADMIN_KEY = "attack-admin-0123456789abcdef";

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final Path data;
    private final int seconds;
    private String victimKey;
    private volatile String phase = "setup";
    private final Map<String, List<Long>> victimNanos = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Integer>> victimFailures = new ConcurrentHashMap<>();

    private AttackBench(String base, Path data, int seconds) {
        this.base = base;
        this.data = data;
        this.seconds = seconds;
    }

    public static void main(String[] args) throws Exception {
        String jar = "server/target/logpipe.jar";
        List<String> jvm = List.of("-Xms256m", "-Xmx768m", "-XX:+UseSerialGC");
        int seconds = 20;
        String config = null;
        List<String> only = List.of("flood", "huge", "parallel", "times", "audit", "tails", "restart");
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--jar" -> jar = args[i + 1];
                case "--jvm-opts" -> jvm = List.of(args[i + 1].trim().split("\\s+"));
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--only" -> only = List.of(args[i + 1].split(","));
                case "--config" -> config = args[i + 1];
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("attack-bench");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Child child = new Child(jar, jvm, dir, port, config);
        AttackBench bench = new AttackBench("http://127.0.0.1:" + port, dir.resolve("data"), seconds);
        child.start();
        System.out.printf("standalone up in %.1f s (JVM %s), data %s%n", child.awaitReady(bench), jvm, dir);
        try {
            bench.run(child, only);
        } finally {
            child.kill();
        }
    }

    private void run(Child child, List<String> only) throws Exception {
        victimKey = createTenantKey("victim");
        ingest(victimKey, victimRecords(5_000));
        awaitCount(victimKey, "service:victim", 5_000);
        AtomicBoolean probing = new AtomicBoolean(true);
        Thread probe = new Thread(() -> probeVictim(probing), "victim-probe");
        probe.start();
        try {
            measure("baseline", () -> "no attack");
            for (String attack : only) {
                switch (attack) {
                    case "flood" -> measure("flood", this::fieldNameFlood);
                    case "huge" -> measure("huge", this::hugeAnswers);
                    case "parallel" -> measure("parallel", this::parallelHeavy);
                    case "times" -> measure("times", this::outOfRangeTimes);
                    case "audit" -> measure("audit", this::auditFlood);
                    case "tails" -> measure("tails", this::tailLockout);
                    case "restart" -> measure("restart", () -> restart(child));
                    default -> throw new IllegalArgumentException("unknown attack " + attack);
                }
            }
        } finally {
            probing.set(false);
            probe.join();
        }
    }

    /** Runs one attack while the victim probes, then prints the victim's latencies and the attack's own result. */
    private void measure(String name, Attack attack) throws Exception {
        phase = name;
        long t0 = System.nanoTime();
        String outcome;
        try {
            outcome = attack.run();
        } catch (Exception | Error e) {
            outcome = "attack failed: " + e;
        }
        long spent = System.nanoTime() - t0;
        if (spent < seconds * 1_000_000_000L && name.equals("baseline")) {
            Thread.sleep(seconds * 1000L - spent / 1_000_000);
        }
        boolean alive = get("/readyz", null).statusCode() == 200;
        phase = "between";
        List<Long> l = new ArrayList<>(victimNanos.getOrDefault(name, List.of()));
        l.sort(null);
        String lat = l.isEmpty()
                ? "no victim search answered"
                : String.format(
                        "victim searches %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                        l.size(),
                        l.get(l.size() / 2) / 1e6,
                        l.get((int) Math.min(l.size() - 1, Math.ceil(l.size() * 0.99) - 1)) / 1e6,
                        l.get(l.size() - 1) / 1e6);
        System.out.printf(
                "%-9s %5.1f s  alive=%s  %s  failures=%s%n          %s%n",
                name, (System.nanoTime() - t0) / 1e9, alive, lat, victimFailures.getOrDefault(name, Map.of()), outcome);
    }

    private void probeVictim(AtomicBoolean probing) {
        while (probing.get()) {
            String p = phase;
            long t = System.nanoTime();
            String outcome;
            try {
                HttpResponse<String> r = get("/api/v1/search?q=level:ERROR&limit=20&from=now-2h", victimKey);
                outcome = r.statusCode() == 200 ? null : Integer.toString(r.statusCode());
            } catch (IOException e) {
                outcome = e.getClass().getSimpleName();
            } catch (InterruptedException e) {
                return;
            }
            long took = System.nanoTime() - t;
            if (outcome == null) {
                victimNanos.computeIfAbsent(p, k -> new ArrayList<>()).add(took);
            } else {
                victimFailures.computeIfAbsent(p, k -> new TreeMap<>()).merge(outcome, 1, Integer::sum);
            }
            pause(20);
        }
    }

    /** 200 records of 1,000 distinct field names each (200,000 names), in bodies of 20 records. */
    private String fieldNameFlood() throws Exception {
        Map<Integer, Integer> statuses = new TreeMap<>();
        int n = 0;
        for (int body = 0; body < 10; body++) {
            StringBuilder b = new StringBuilder();
            for (int r = 0; r < 20; r++, n++) {
                b.append("{\"message\":\"flood ").append(n).append("\",\"service\":\"flood\",\"fields\":{");
                for (int f = 0; f < 1000; f++) {
                    b.append(f == 0 ? "" : ",")
                            .append("\"f")
                            .append(n)
                            .append('_')
                            .append(f)
                            .append("\":")
                            .append(f);
                }
                b.append("}}\n");
            }
            statuses.merge(post("/api/v1/logs", ATTACKER_KEY, b.toString()).statusCode(), 1, Integer::sum);
        }
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long found = -1;
        while (System.nanoTime() < deadline) {
            found = count(ATTACKER_KEY, "service:flood");
            if (found == 200) {
                break;
            }
            pause(500);
        }
        waitOut(deadline);
        return "ingest answers " + statuses + "; flood records searchable: " + found + "/200";
    }

    /** 1,001 messages of 250 KB, then four clients asking for limit=1000 pages and ±500 contexts. */
    private String hugeAnswers() throws Exception {
        String filler = "x".repeat(250_000);
        for (int body = 0; body < 77; body++) {
            StringBuilder b = new StringBuilder();
            for (int r = 0; r < 13; r++) {
                b.append("{\"message\":\"huge ")
                        .append(body * 13 + r)
                        .append(' ')
                        .append(filler)
                        .append("\",\"service\":\"huge\",\"instance_id\":\"h1\"}\n");
            }
            post("/api/v1/logs", ATTACKER_KEY, b.toString());
        }
        awaitCount(ATTACKER_KEY, "service:huge", 1_001);
        HttpResponse<String> one = get("/api/v1/search?q=service:huge&limit=1&from=now-2h", ATTACKER_KEY);
        String id = one.body().replaceAll("(?s).*?\"record_id\":\"([^\"]+)\".*", "$1");
        List<String> urls = List.of(
                "/api/v1/search?q=service:huge&limit=1000&from=now-2h",
                "/api/v1/context/" + id + "?before=500&after=500");
        return hammer(4, urls, seconds);
    }

    /** 50 clients at once, each running prefix queries over a week: pages of 1,000, 1 s histograms, top values. */
    private String parallelHeavy() throws Exception {
        List<String> urls = List.of(
                "/api/v1/search?q=" + enc("r* OR h* OR f*") + "&limit=1000&from=now-7d",
                "/api/v1/histogram?q=" + enc("r* OR v* OR f*") + "&from=now-7d&interval=5m",
                "/api/v1/fields/service/top?q=" + enc("r* OR h*") + "&from=now-7d&size=1000");
        return hammer(50, urls, seconds);
    }

    /** Event times a year before 0001 and past 9999: each must be searchable or a dead letter of its tenant. */
    private String outOfRangeTimes() throws Exception {
        String token = "oor" + System.nanoTime();
        String body = "{\"message\":\"" + token + " a\",\"event_time\":\"-000001-01-01T00:00:00Z\"}\n"
                + "{\"message\":\"" + token + " b\",\"event_time\":\"+100000-01-01T00:00:00Z\"}\n";
        HttpResponse<String> ack = post("/api/v1/logs", ATTACKER_KEY, body);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long records = 0;
        long dead = 0;
        while (System.nanoTime() < deadline && records + dead < 2) {
            records = count(ATTACKER_KEY, token, "/api/v1/search", "now-2h")
                    + count(ATTACKER_KEY, token, "/api/v1/search", "0001-01-01T00:00:00Z&to=9999-12-31T00:00:00Z");
            dead = count(ATTACKER_KEY, token, "/api/v1/dead-letters", "now-2d");
            pause(500);
        }
        return "ack " + ack.statusCode() + " " + ack.body().strip() + "; findable as record " + records
                + ", as dead letter " + dead + " (of 2)";
    }

    /** 4,000-character queries from four clients, and wrong keys, while the audit logs are measured. */
    private String auditFlood() throws Exception {
        long before = auditBytes();
        String longQuery = "/api/v1/search?limit=1&q=" + enc("a".repeat(3_990) + "*") + "&from=now-5m";
        String hammered = hammer(4, List.of(longQuery), seconds / 2);
        long mid = auditBytes();
        Map<Integer, Integer> wrong = new TreeMap<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < 1_000; i++) {
            wrong.merge(get("/api/v1/search?q=x", "wrong-key-" + i).statusCode(), 1, Integer::sum);
        }
        double wrongSeconds = (System.nanoTime() - t0) / 1e9;
        long after = auditBytes();
        return String.format(
                "long queries: %s; audit grew %.1f MB (%.2f MB/s); 1,000 wrong keys in %.2f s answered %s, audit grew"
                        + " %.2f MB more; audit files now %.1f MB",
                hammered,
                (mid - before) / 1e6,
                (mid - before) / 1e6 / (seconds / 2.0),
                wrongSeconds,
                wrong,
                (after - mid) / 1e6,
                after / 1e6);
    }

    /** The attacker opens 20 tails and holds them; the victim then asks for one. */
    private String tailLockout() throws Exception {
        List<InputStream> held = new ArrayList<>();
        Map<Integer, Integer> attacker = new TreeMap<>();
        try {
            for (int i = 0; i < 20; i++) {
                HttpResponse<InputStream> r = http.send(
                        request("/api/v1/tail?q=service:flood", ATTACKER_KEY).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                attacker.merge(r.statusCode(), 1, Integer::sum);
                held.add(r.body());
            }
            HttpResponse<InputStream> victim = http.send(
                    request("/api/v1/tail?q=level:ERROR", victimKey).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            victim.body().close();
            return "attacker's 20 tails answered " + attacker + "; the victim's tail answered " + victim.statusCode();
        } finally {
            for (InputStream in : held) {
                in.close();
            }
        }
    }

    private String restart(Child child) throws Exception {
        child.kill();
        child.start();
        double up = child.awaitReady(this);
        long found = count(victimKey, "service:victim");
        return String.format("killed with SIGKILL, ready again in %.1f s; victim records found: %d/5000", up, found);
    }

    /** Clients GET the URLs in turn for some seconds; answers by status, wall time p50/max, and non-JSON errors. */
    private String hammer(int clients, List<String> urls, int forSeconds) throws Exception {
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        List<Long> walls = java.util.Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> notJson = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + forSeconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        for (int c = 0; c < clients; c++) {
            int first = c;
            pool.submit(() -> {
                for (int i = first; System.nanoTime() < deadline; i++) {
                    long t = System.nanoTime();
                    try {
                        HttpResponse<InputStream> r = http.send(
                                request(urls.get(i % urls.size()), ATTACKER_KEY)
                                        .timeout(Duration.ofSeconds(60))
                                        .build(),
                                HttpResponse.BodyHandlers.ofInputStream());
                        byte[] head;
                        try (InputStream in = r.body()) {
                            head = in.readNBytes(1);
                            in.transferTo(java.io.OutputStream.nullOutputStream());
                        }
                        statuses.merge(r.statusCode(), 1, Integer::sum);
                        if (r.statusCode() != 200 && (head.length == 0 || head[0] != '{')) {
                            notJson.merge(Integer.toString(r.statusCode()), 1, Integer::sum);
                        }
                    } catch (IOException e) {
                        statuses.merge(-1, 1, Integer::sum);
                    } catch (InterruptedException e) {
                        return;
                    }
                    walls.add(System.nanoTime() - t);
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(forSeconds + 120L, TimeUnit.SECONDS);
        List<Long> w = new ArrayList<>(walls);
        w.sort(null);
        return String.format(
                "%d clients: answers %s (-1 = connection error), non-JSON error bodies %s, wall p50 %.0f ms, max %.0f ms",
                clients,
                new TreeMap<>(statuses),
                notJson,
                w.isEmpty() ? 0 : w.get(w.size() / 2) / 1e6,
                w.isEmpty() ? 0 : w.get(w.size() - 1) / 1e6);
    }

    private long auditBytes() throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            return files.filter(p -> p.getFileName().toString().contains("audit"))
                    .filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private String createTenantKey(String tenant) throws Exception {
        HttpResponse<String> r = http.send(
                request("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("creating tenant " + tenant + ": " + r.statusCode() + " " + r.body());
        }
        return r.body().replaceAll("(?s).*\"key\":\"([^\"]+)\".*", "$1");
    }

    private static String victimRecords(int n) {
        StringBuilder b = new StringBuilder();
        String[] levels = {"INFO", "WARN", "ERROR", "DEBUG"};
        for (int i = 0; i < n; i++) {
            b.append("{\"message\":\"victim record ")
                    .append(i)
                    .append(" request served\",\"level\":\"")
                    .append(levels[i % 4])
                    .append("\",\"service\":\"victim\"}\n");
        }
        return b.toString();
    }

    private void ingest(String key, String body) throws Exception {
        HttpResponse<String> r = post("/api/v1/logs", key, body);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("ingest answered " + r.statusCode() + ": " + r.body());
        }
    }

    private void awaitCount(String key, String q, long n) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (count(key, q) < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("never found " + n + " records for " + q);
            }
            pause(250);
        }
    }

    private long count(String key, String q) throws Exception {
        return count(key, q, "/api/v1/search", "now-2h");
    }

    /** The exact total of matches, from the histogram (which counts every match). */
    private long count(String key, String q, String path, String from) throws Exception {
        String url = path.equals("/api/v1/search")
                ? "/api/v1/histogram?interval=1d&q=" + enc(q) + "&from=" + from
                : path + "?limit=1000&q=" + enc(q) + "&from=" + from;
        HttpResponse<String> r = get(url, key);
        if (r.statusCode() != 200) {
            return -r.statusCode();
        }
        if (path.equals("/api/v1/search")) {
            return Long.parseLong(r.body().replaceAll("(?s).*\"total\":(\\d+).*", "$1"));
        }
        return JSON.readTree(r.body()).path("hits").size(); // a dead letter's hit has no record_id
    }

    private HttpResponse<String> get(String path, String key) throws IOException, InterruptedException {
        return http.send(request(path, key).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String key, String body) throws IOException, InterruptedException {
        return http.send(
                request(path, key)
                        .header("Content-Type", "application/x-ndjson")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return b;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void waitOut(long deadline) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
            pause(left / 1_000_000);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @FunctionalInterface
    private interface Attack {
        String run() throws Exception;
    }

    /** The standalone under attack, as a child process with its output in files. */
    private static final class Child {
        private final List<String> command = new ArrayList<>();
        private final Path dir;
        private Process process;
        private long startedAt;

        Child(String jar, List<String> jvm, Path dir, int port, String config) {
            this.dir = dir;
            command.add("java");
            command.add("-XX:+ExitOnOutOfMemoryError"); // as bin/logpipe gives every JVM, before its options
            command.addAll(jvm);
            command.addAll(List.of(
                    "-jar",
                    jar,
                    "standalone",
                    "--data",
                    dir.resolve("data").toString(),
                    "--port",
                    Integer.toString(port),
                    "--broker-port",
                    "0"));
            if (config != null) {
                command.addAll(List.of("--config", config));
            }
        }

        void start() throws IOException {
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("stderr.txt").toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("stdout.txt").toFile()));
            pb.environment().put("LOGPIPE_API_KEY", ATTACKER_KEY);
            pb.environment().put("LOGPIPE_ADMIN_KEY", ADMIN_KEY);
            startedAt = System.nanoTime();
            process = pb.start();
        }

        double awaitReady(AttackBench bench) throws Exception {
            Supplier<Boolean> ready = () -> {
                try {
                    return bench.get("/readyz", null).statusCode() == 200;
                } catch (IOException e) {
                    return false;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            };
            while (!ready.get()) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("standalone exited; see " + dir.resolve("stderr.txt"));
                }
                Thread.sleep(100);
            }
            return (System.nanoTime() - startedAt) / 1e9;
        }

        void kill() throws InterruptedException {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
    }
}
