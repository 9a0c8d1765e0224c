package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.LiveShards;
import dev.logpipe.index.store.LuceneStore;
import dev.logpipe.index.store.StoreSettings;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.http.QueryServer;
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
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !lines.isEmpty()); // the opening comment
                Thread.sleep(500); // let the first poll mark what exists; the next ones only send new records
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
}
