package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.LuceneStore;
import dev.logpipe.index.store.StoreSettings;
import dev.logpipe.record.LogRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24 item 7: with 50 heavy queries at once, {@code limits.query_timeout} bounds each answer's wall time,
 * queueing for a search thread included (10 s answered after up to 16.9 s before).
 */
class DeadlineTest {
    static final Instant NOW = Instant.parse("2026-12-20T12:00:00Z");
    static final long TIMEOUT_MS = 400;
    static final long SLACK_MS = 600;

    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path data;

    @Test
    void fiftyHeavyQueriesAtOnceAnswerWithinTheTimeout() throws Exception {
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.system())) {
            for (int d = 0; d < 12; d++) {
                List<LogRecord> rs = new ArrayList<>();
                for (int i = 0; i < 4000; i++) {
                    rs.add(record(
                                    "acme",
                                    "r-" + d + "-" + i,
                                    NOW.minusSeconds(86_400L * d + i + 1),
                                    "tick w" + i * 7919 + " v" + (i % 97) + " " + "lorem ipsum ".repeat(20))
                            .build());
                }
                QueryFixture.write(store, rs);
            }
            store.commit(Map.of("t-0", 1L));
        }
        String extra = """
                limits:
                  query_timeout: %dms
                  max_concurrent_queries: 64
                  search_threads: 2
                  max_running_queries: 4
                """.formatted(TIMEOUT_MS);
        try (QueryProcess q = QueryFixture.start(data, extra, InstantSource.fixed(NOW))) {
            List<String> heavy = List.of(
                    "/api/v1/search?limit=1000&from=now-14d&q=" + enc("/.*1.*/ OR v1*"),
                    "/api/v1/search?limit=1000&order=asc&from=now-14d&q=" + enc("lorem AND /w.*3.*/"),
                    "/api/v1/histogram?interval=5m&from=now-14d&q=" + enc("/.*2.*/"),
                    "/api/v1/fields/top?field=record_id&size=1000&from=now-14d&q=" + enc("/.*9.*/"));
            String base = "http://127.0.0.1:" + q.address().getPort();
            ExecutorService clients = Executors.newFixedThreadPool(50);
            CountDownLatch go = new CountDownLatch(1);
            List<Long> millis = new CopyOnWriteArrayList<>();
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < 50; c++) {
                int n = c;
                all.add(clients.submit(() -> {
                    get(q, "/api/v1/status", ACME_KEY); // the client's connection is open before the clock starts
                    go.await();
                    for (int i = 0; i < 3; i++) {
                        long t0 = System.nanoTime();
                        HttpResponse<Void> r = HTTP.send(
                                HttpRequest.newBuilder(URI.create(base + heavy.get((n + i) % heavy.size())))
                                        .header("Authorization", "Bearer " + ACME_KEY)
                                        .build(),
                                HttpResponse.BodyHandlers.discarding());
                        millis.add((System.nanoTime() - t0) / 1_000_000);
                        statuses.computeIfAbsent(r.statusCode(), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : all) {
                f.get();
            }
            clients.shutdown();
            millis.sort(Long::compare);
            assertThat(statuses.keySet()).as("statuses %s", statuses).isSubsetOf(200, 429, 503);
            assertThat(millis.get(millis.size() - 1))
                    .as("wall times ms %s, statuses %s", millis, statuses)
                    .isLessThanOrEqualTo(TIMEOUT_MS + SLACK_MS);
        }
    }
}
