package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LimitsTest {
    static final Instant NOW = Instant.parse("2026-12-20T12:00:00Z");

    @TempDir
    Path data;

    void write(int days) throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int d = 0; d < days; d++) {
            for (int i = 0; i < 200; i++) {
                rs.add(record("acme", "a-" + d + "-" + i, NOW.minusSeconds(86_400L * d + i + 1), "tick")
                        .build());
            }
        }
        for (int i = 0; i < 100; i++) {
            rs.add(record("globex", "g-" + i, NOW.minusSeconds(i + 1), "tick").build());
        }
        QueryFixture.write(data, rs);
    }

    @Test
    void aQueryOverBudgetAnswersPartialNamingTheSkippedShardsAndPagesOnPastThem() throws Exception {
        write(10);
        try (QueryProcess q = QueryFixture.start(data, "limits:\n  max_shards: 3\n", InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-15d&limit=1000&q=tick", ACME_KEY));
            assertThat(j.get("partial").asBoolean()).isTrue();
            assertThat(j.get("partial_reasons").toString()).contains("max_shards");
            assertThat(j.get("hits")).hasSize(600);
            assertThat(j.get("shards").get("skipped")).hasSize(7);
            assertThat(j.get("shards").get("skipped").get(0).get("day").asText())
                    .isEqualTo("2026-12-17");
            assertThat(j.get("total").get("relation").asText()).isEqualTo("gte");
            Set<String> all = new HashSet<>();
            String cursor = null;
            do { // the resume cursor pages on past the budget's cut: nothing is lost, nothing repeats
                JsonNode p = json(get(
                        q,
                        "/api/v1/search?from=now-15d&limit=1000&q=tick" + (cursor == null ? "" : "&cursor=" + cursor),
                        ACME_KEY));
                p.get("hits")
                        .forEach(h ->
                                assertThat(all.add(h.get("record_id").asText())).isTrue());
                cursor = p.has("next_cursor") ? p.get("next_cursor").asText() : null;
            } while (cursor != null);
            assertThat(all).hasSize(2000);
        }
    }

    @Test
    void aPartialAnswersTotalCountsEveryShardWithinTheBudgetNotOnlyThoseItsPageNeeded() throws Exception {
        write(10);
        try (QueryProcess q = QueryFixture.start(data, "limits:\n  max_shards: 3\n", InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-15d&limit=1&q=tick", ACME_KEY));
            assertThat(j.get("partial").asBoolean()).isTrue();
            assertThat(j.get("shards").get("searched").asInt()).isEqualTo(1);
            assertThat(j.get("shards").get("not_needed").asInt()).isEqualTo(2);
            assertThat(j.get("shards").get("skipped")).hasSize(7);
            // at least the three shards the budget let in (the seven skipped ones are not counted): a lower bound
            assertThat(j.get("total").get("value").asLong()).isEqualTo(600);
            assertThat(j.get("total").get("relation").asText()).isEqualTo("gte");
        }
    }

    @Test
    void theRangeIsClampedToTheTenantsWindowAndTheAnswerSaysSo() throws Exception {
        write(10);
        try (QueryProcess q = QueryFixture.start(data, "limits:\n  max_window: 2d\n", InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-15d&limit=1000&q=tick", ACME_KEY));
            assertThat(j.get("range").get("clamped").asBoolean()).isTrue();
            assertThat(j.get("range").get("from").asText()).isEqualTo("2026-12-18T12:00:00Z");
            assertThat(j.get("partial_reasons").toString()).contains("max_window");
            assertThat(j.get("hits")).hasSize(400);
        }
    }

    @Test
    void overTheTenantsConcurrencyLimitIs429WithRetryAfterWhileAnotherTenantIsServed() throws Exception {
        write(10);
        String extra = "limits:\n  max_concurrent_queries: 1\n";
        try (QueryProcess q = QueryFixture.start(data, extra, InstantSource.fixed(NOW))) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Integer>> load = new ArrayList<>();
            Set<Integer> statuses = ConcurrentHashMap.newKeySet();
            List<HttpResponse<String>> refused = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 3; i++) {
                load.add(pool.submit(() -> {
                    int n = 0;
                    while (!stop.get() && n < 300) {
                        HttpResponse<String> r = get(q, "/api/v1/histogram?from=now-15d&interval=5m", ACME_KEY);
                        statuses.add(r.statusCode());
                        if (r.statusCode() == 429) {
                            refused.add(r);
                        }
                        n++;
                    }
                    return n;
                }));
            }
            List<Long> globex = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long t0 = System.nanoTime();
                HttpResponse<String> r = get(q, "/api/v1/search?q=tick&from=now-1d", GLOBEX_KEY);
                globex.add((System.nanoTime() - t0) / 1_000_000);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(json(r).get("hits")).hasSize(100);
            }
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !refused.isEmpty());
            stop.set(true);
            for (Future<Integer> f : load) {
                f.get();
            }
            pool.shutdown();
            assertThat(statuses).contains(200, 429).doesNotContain(500);
            assertThat(refused.get(0).headers().firstValue("Retry-After")).hasValue("1");
            globex.sort(Long::compare);
            assertThat(globex.get(globex.size() / 2))
                    .as("globex median ms %s", globex)
                    .isLessThan(500);
        }
    }
}
