package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.record.LogRecord;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Live tail in one JVM with the indexer's store (LiveShards, near-real-time), as the standalone mounts it. */
class TailTest {
    @TempDir
    Path data;

    @Test
    void aTailGetsAFreshRecordWithinTwoSecondsAndNeverAnotherTenants() throws Exception {
        Clock clock = Clock.systemUTC();
        QueryConfig config = QueryFixture.config(data, "limits:\n  max_tails: 1\n  tail_poll: 200ms\n");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock);
                QueryService service = QueryService.create(
                        config,
                        new LiveShards(store),
                        new ConfiguredKeys(config.keys()),
                        IndexerProgress.NONE,
                        clock,
                        registry)) {
            QueryFixture.write(
                    store,
                    List.of(record("acme", "old-1", clock.instant(), "payment old")
                            .build()));
            store.refresh();
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, 32);
            server.start();
            try {
                HttpClient http = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + server.address().getPort();
                HttpResponse<InputStream> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/tail?q=payment"))
                                .header("Authorization", "Bearer " + ACME_KEY)
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
                List<String> lines = new CopyOnWriteArrayList<>();
                Thread reader = new Thread(() -> {
                    try (BufferedReader b =
                            new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = b.readLine()) != null) {
                            lines.add(line);
                        }
                    } catch (Exception e) {
                        // the test ends the stream
                    }
                });
                reader.setDaemon(true);
                reader.start();
                // the tail's start, before which nothing is sent, is fixed before its opening comment is written:
                // the records written from here on are new to it
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lines.contains(": tail of acme"));
                long written = System.nanoTime();
                QueryFixture.write(
                        store,
                        List.of(
                                record("globex", "g-fresh", clock.instant(), "payment globex")
                                        .build(),
                                record("acme", "a-fresh", clock.instant(), "payment fresh")
                                        .build(),
                                record("acme", "a-nomatch", clock.instant(), "unrelated")
                                        .build()));
                store.refresh();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> lines.stream().anyMatch(l -> l.contains("a-fresh")));
                long took = (System.nanoTime() - written) / 1_000_000;
                assertThat(took).isLessThan(2000);
                assertThat(String.join("\n", lines))
                        .doesNotContain("g-fresh")
                        .doesNotContain("globex")
                        .doesNotContain("old-1")
                        .doesNotContain("a-nomatch")
                        .contains("event: record");
                // the cap: a second tail is refused while this one runs
                HttpResponse<String> second = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/tail"))
                                .header("Authorization", "Bearer " + ACME_KEY)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(second.statusCode()).isEqualTo(429);
                r.body().close();
            } finally {
                service.close();
                server.close();
            }
        }
    }

    /** A tail's response and the lines read from it so far (by a daemon thread). */
    record Open(HttpResponse<InputStream> response, List<String> lines) {
        long count(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).count();
        }

        long skipped() {
            return lines.stream()
                    .filter(l -> l.startsWith("data: {\"skipped\":"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("^data: \\{\"skipped\":(\\d+),.*", "$1")))
                    .sum();
        }
    }

    static Open open(HttpClient http, String url, String key) throws Exception {
        HttpResponse<InputStream> r = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Authorization", "Bearer " + key)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        List<String> lines = new CopyOnWriteArrayList<>();
        if (r.statusCode() == 200) {
            Thread reader = new Thread(() -> {
                try (BufferedReader b = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = b.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (Exception e) {
                    // the test ends the stream
                }
            });
            reader.setDaemon(true);
            reader.start();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !lines.isEmpty());
        }
        return new Open(r, lines);
    }

    interface Body {
        void run(LuceneStore store, String base, HttpClient http) throws Exception;
    }

    /** The service's shard source while {@link #withService} runs: its {@code compiles()} count Lucene compilations. */
    private LiveShards shards;

    void withService(String limits, Body body) throws Exception {
        LiveService.run(data, limits, 64, (store, live, port, http) -> {
            shards = live;
            body.run(store, "http://127.0.0.1:" + port, http);
        });
    }

    static void burst(LuceneStore store, String prefix, int n, String pad) throws Exception {
        for (int from = 0; from < n; from += 5000) {
            List<LogRecord> rs = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 5000); i++) {
                rs.add(record("acme", prefix + i, Instant.now(), "burst " + i + pad)
                        .build());
            }
            QueryFixture.write(store, rs);
        }
        store.refresh();
    }

    @Test
    void oneTenantsTailsLeaveRoomForAnotherAndAClosedTailFreesItsSlotAtOnce() throws Exception {
        withService("limits:\n  max_tails: 4\n  max_tails_per_tenant: 2\n  tail_poll: 100ms\n", (store, base, http) -> {
            Open a1 = open(http, base + "/api/v1/tail", ACME_KEY);
            Open a2 = open(http, base + "/api/v1/tail", ACME_KEY);
            assertThat(a1.response().statusCode()).isEqualTo(200);
            assertThat(a2.response().statusCode()).isEqualTo(200);
            HttpResponse<String> third = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/tail"))
                            .header("Authorization", "Bearer " + ACME_KEY)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).contains("\"reason\":\"tail_tenant_cap\"");
            Open g = open(http, base + "/api/v1/tail", GLOBEX_KEY);
            assertThat(g.response().statusCode()).as("another tenant's tail").isEqualTo(200);
            long closed = System.nanoTime();
            a1.response().body().close();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Open again = open(http, base + "/api/v1/tail", ACME_KEY);
                        if (again.response().statusCode() == 200) {
                            again.response().body().close();
                            return true;
                        }
                        return false;
                    });
            assertThat((System.nanoTime() - closed) / 1_000_000).isLessThan(5_000);
            a2.response().body().close();
            g.response().body().close();
        });
    }

    @Test
    void burstsOfThreeThousandAndTwentyFiveThousandRecordsArriveWhole() throws Exception {
        withService("limits:\n  tail_poll: 100ms\n", (store, base, http) -> {
            Open t = open(http, base + "/api/v1/tail?q=burst", ACME_KEY);
            burst(store, "a-", 3000, "");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> t.count("event: record") >= 3000);
            burst(store, "b-", 25_000, "");
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> t.count("event: record") >= 28_000);
            // nothing more than the records written may come: the count holds for three polls
            Awaitility.await()
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> t.count("event: record") == 28_000);
            assertThat(t.lines().stream()
                            .filter(l -> l.startsWith("id: "))
                            .distinct()
                            .count())
                    .isEqualTo(28_000);
            assertThat(t.skipped()).isZero();
            t.response().body().close();
        });
    }

    @Test
    void recordsATailCannotSendInTimeAreReportedAsSkipped() throws Exception {
        String limits = "limits:\n  tail_poll: 100ms\n  tail_lag: 2s\n  max_answer_bytes: 64KiB\n";
        withService(limits, (store, base, http) -> {
            Open t = open(http, base + "/api/v1/tail?q=burst", ACME_KEY);
            burst(store, "c-", 400, " " + "x".repeat(20_000)); // three a poll fit in 64 KiB: 30/s, 400 in 2 s cannot
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> t.count("event: record") + t.skipped() == 400);
            assertThat(t.skipped()).isPositive();
            assertThat(t.count("event: skipped")).isPositive();
            t.response().body().close();
        });
    }

    @Test
    void pollsOfSeveralTailsParseEachTailsQueryOnce() throws Exception {
        withService("limits:\n  tail_poll: 50ms\n", (store, base, http) -> {
            List<Open> open = new ArrayList<>();
            for (String q : List.of("burst", "burst%20OR%20nothing", "*:*%20NOT%20nothing")) {
                open.add(open(http, base + "/api/v1/tail?q=" + q, ACME_KEY));
            }
            burst(store, "p-", 10, "");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> open.stream().allMatch(t -> t.count("event: record") > 0));
            long compiled = shards.compiles(); // each tail's q parsed once, at its start, and compiled once
            assertThat(compiled).isGreaterThanOrEqualTo(open.size());
            burst(store, "q-", 10, "");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> open.stream().allMatch(t -> t.count("event: record") >= 20));
            Awaitility.await() // about 20 more polls of each tail, every one of them counting its window
                    .during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> shards.compiles() == compiled);
            for (Open t : open) {
                t.response().body().close();
            }
        });
    }

    @Test
    void aDeadLetterTailGetsFreshDeadLettersOnlyAndAnUnknownKindIsRefused() throws Exception {
        withService("limits:\n  tail_poll: 100ms\n", (store, base, http) -> {
            Open dead = open(http, base + "/api/v1/tail?kind=dead-letters", ACME_KEY);
            assertThat(dead.response().statusCode()).isEqualTo(200);
            Instant now = Instant.now();
            byte[] src = "{\"reason\":\"SCHEMA_INVALID\",\"tenant_id\":\"acme\",\"raw\":\"broken live\"}"
                    .getBytes(StandardCharsets.UTF_8);
            store.writeDeadLetters(
                    dev.logpipe.index.shard.ShardId.deadLetters(
                            "acme", java.time.LocalDate.ofInstant(now, java.time.ZoneOffset.UTC)),
                    List.of(new DeadLetterEntry(
                            "dl-live", "acme", "SCHEMA_INVALID", "bad json", "broken live", now, src, 0, src.length)));
            QueryFixture.write(
                    store,
                    List.of(record("acme", "rec-live", now, "a record, not a dead letter")
                            .build()));
            store.refresh();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> dead.lines().stream().anyMatch(l -> l.contains("broken live")));
            assertThat(String.join("\n", dead.lines())).doesNotContain("rec-live");
            dead.response().body().close();

            HttpResponse<String> bogus = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/tail?kind=everything"))
                            .header("Authorization", "Bearer " + ACME_KEY)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(bogus.statusCode()).isEqualTo(400);
            assertThat(bogus.body()).contains("kind: records or dead-letters");
        });
    }
}
