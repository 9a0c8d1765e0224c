package dev.logpipe.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Samples the standalone's {@code GET /api/v1/indexer/status} totals every 250 ms for the first {@code seconds} of a load, so
 * a lag can be placed in a stage: records posted but not yet read by the indexer ({@code durable - read}; durable is
 * checked by the indexer once a second, so this under-reads), read but not indexed, indexed but not queryable.
 */
final class StageTrace {
    private static final Pattern TOTAL = Pattern.compile("\"(durable|read|indexed|queryable)\":(\\d+)");

    private final HttpClient http;
    private final String base;
    private final int seconds;
    private final List<String> rows = new ArrayList<>();
    private Thread thread;

    StageTrace(HttpClient http, String base, int seconds) {
        this.http = http;
        this.base = base;
        this.seconds = seconds;
    }

    void start(long loadStart) {
        if (seconds <= 0) {
            return;
        }
        thread = new Thread(() -> run(loadStart), "stage-trace");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(long loadStart) {
        try {
            long next = loadStart;
            while (next - loadStart < seconds * 1_000_000_000L) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                long asked = System.nanoTime();
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/indexer/status"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                long took = System.nanoTime() - asked;
                String totals = r.body().substring(0, Math.max(0, r.body().indexOf('}')));
                long[] v = new long[4];
                Matcher m = TOTAL.matcher(totals);
                while (m.find()) {
                    int i = List.of("durable", "read", "indexed", "queryable").indexOf(m.group(1));
                    v[i] = Long.parseLong(m.group(2));
                }
                synchronized (rows) {
                    rows.add(String.format(
                            "%6.2f %9d %9d %9d %9d %8d %8d %8d %6d",
                            (asked - loadStart) / 1e9,
                            v[0],
                            v[1],
                            v[2],
                            v[3],
                            v[0] - v[1],
                            v[1] - v[2],
                            v[2] - v[3],
                            took / 1_000_000));
                }
                next += 250_000_000L;
            }
        } catch (Exception e) {
            synchronized (rows) {
                rows.add("trace stopped: " + e);
            }
        }
    }

    void stop() throws InterruptedException {
        if (thread != null) {
            thread.join(15_000);
        }
    }

    void print() {
        System.out.println("     t   durable      read   indexed queryable  dur-read idx-lag  qry-lag status_ms");
        synchronized (rows) {
            rows.forEach(System.out::println);
        }
    }
}
