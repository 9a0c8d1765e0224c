package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.opensearch.OpenSearchStore;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.record.LogRecord;
import dev.logpipe.testkit.Integration;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code logpipe query} with {@code store: opensearch}: the same API over a real OpenSearch 2.19 node — pages with a
 * cursor, the histogram, top values, the field names, and another tenant's key seeing none of it.
 */
@Integration
@ExtendWith(OpenSearchExtension.class)
class OpenSearchQueryTest {
    @TempDir
    Path data;

    @Test
    void searchPagesHistogramTopValuesAndFieldsAnswerFromOpenSearchForTheKeysTenantOnly(OpenSearchExtension.Node node)
            throws Exception {
        OpenSearchSettings settings = settings(node, "osquery");
        Instant now = Instant.now();
        List<LogRecord> records = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            records.add(record(
                            "acme",
                            "a-" + i,
                            now.minusSeconds(i * 60L),
                            (i % 5 == 0 ? "payment failed " : "ok ") + "order_id=CO-" + i)
                    .field("took_ms", i)
                    .field("log.file", "/var/log/app.log")
                    .build());
        }
        records.add(record("globex", "g-1", now.minusSeconds(5), "payment failed for globex")
                .build());
        OpenSearchStore store = OpenSearchStore.open(settings);
        QueryFixture.write(store, records);
        store.refresh();
        String yaml = "store: opensearch\nopensearch:\n  hosts: [\"" + node.base() + "\"]\n  index_prefix: osquery\n";
        try (QueryProcess q = QueryFixture.start(data, yaml, Clock.systemUTC())) {
            List<String> ids = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode page = json(get(
                        q,
                        "/api/v1/search?q=" + enc("payment") + "&from=now-1d&limit=20"
                                + (cursor == null ? "" : "&cursor=" + enc(cursor)),
                        ACME_KEY));
                page.path("hits").forEach(h -> ids.add(h.path("record_id").asText()));
                cursor = page.path("next_cursor").isTextual()
                        ? page.path("next_cursor").asText()
                        : null;
            } while (cursor != null);
            assertThat(ids).hasSize(50).doesNotHaveDuplicates().allMatch(id -> id.startsWith("a-"));
            assertThat(ids.get(0)).isEqualTo("a-0"); // newest first
            JsonNode histogram = json(get(q, "/api/v1/histogram?q=&from=now-1d&interval=1h", ACME_KEY));
            long sum = 0;
            for (JsonNode b : histogram.path("buckets")) {
                sum += b.path("count").asLong();
            }
            assertThat(sum).as("%s", histogram).isEqualTo(250);
            JsonNode top = json(get(q, "/api/v1/fields/top?field=service&q=&from=now-1d", ACME_KEY));
            assertThat(top.toString()).contains("\"api\"").contains("250");
            JsonNode fields = json(get(q, "/api/v1/fields?from=now-1d", ACME_KEY));
            assertThat(fields.toString())
                    .as("names from the index's mapping")
                    .contains("{\"name\":\"fields.took_ms\",\"types\":[\"KEYWORD\",\"LONG\"]}")
                    .contains("{\"name\":\"fields.log.file\",\"types\":[\"KEYWORD\"]}");
            JsonNode theirs = json(get(q, "/api/v1/search?q=" + enc("payment") + "&from=now-1d", GLOBEX_KEY));
            assertThat(theirs.path("hits")).hasSize(1);
            assertThat(theirs.path("hits").path(0).path("record_id").asText()).isEqualTo("g-1");
        }
    }

    /**
     * A query over three days asks the cluster once per step, not once per day: a histogram is one {@code _msearch},
     * a page's records from three days one {@code _mget}, a page the newest day fills one {@code _msearch} of its keys
     * and the other days' counts; the metrics count each endpoint's requests and the time waited for them.
     */
    @Test
    void aQueryOverThreeDaysIsOneRequestPerStepCountedByEndpointInTheMetrics(OpenSearchExtension.Node node)
            throws Exception {
        OpenSearchSettings settings = settings(node, "osrequests");
        Instant now = Instant.now();
        List<LogRecord> records = new ArrayList<>();
        for (int day = 0; day < 3; day++) {
            records.add(record("acme", "d-" + day, now.minus(Duration.ofDays(day)), "step marker day " + day)
                    .field("step", "yes")
                    .build());
        }
        OpenSearchStore store = OpenSearchStore.open(settings);
        QueryFixture.write(store, records);
        store.refresh();
        String yaml =
                "store: opensearch\nopensearch:\n  hosts: [\"" + node.base() + "\"]\n  index_prefix: osrequests\n";
        try (QueryProcess q = QueryFixture.start(data, yaml, Clock.systemUTC())) {
            json(get(q, "/api/v1/histogram?q=&from=now-4d&interval=1h", ACME_KEY)); // the listing is read now
            System.gc(); // a meter that held its counts only weakly would report nothing from here on
            double msearch = requests(q, "_msearch");
            double search = requests(q, "_search");
            JsonNode h = json(get(q, "/api/v1/histogram?q=&from=now-4d&interval=1h", ACME_KEY));
            assertThat(h.path("total").asLong()).as("%s", h).isEqualTo(3);
            assertThat(requests(q, "_msearch")).isEqualTo(msearch + 1);
            assertThat(requests(q, "_search")).isEqualTo(search);
            double mget = requests(q, "_mget");
            JsonNode page = json(get(q, "/api/v1/search?q=" + enc("marker") + "&from=now-4d&limit=10", ACME_KEY));
            assertThat(page.path("hits")).as("%s", page).hasSize(3);
            assertThat(requests(q, "_mget")).isEqualTo(mget + 1);
            assertThat(seconds(q, "_msearch")).isPositive();
            // a page on a message token the newest day fills: its keys alone, then the other days' counts
            msearch = requests(q, "_msearch");
            search = requests(q, "_search");
            JsonNode token = json(get(q, "/api/v1/search?q=" + enc("marker") + "&from=now-4d&limit=1", ACME_KEY));
            assertThat(token.path("total").path("value").asLong())
                    .as("%s", token)
                    .isEqualTo(3);
            assertThat(requests(q, "_search")).isEqualTo(search + 1);
            assertThat(requests(q, "_msearch")).isEqualTo(msearch + 1);
            // a page on a field (no message token) the newest day fills: its keys and the other days' counts in one
            // _msearch, the total exact
            msearch = requests(q, "_msearch");
            search = requests(q, "_search");
            JsonNode one = json(get(q, "/api/v1/search?q=" + enc("step:yes") + "&from=now-4d&limit=1", ACME_KEY));
            assertThat(one.path("hits").path(0).path("record_id").asText())
                    .as("%s", one)
                    .isEqualTo("d-0");
            assertThat(one.path("shards").path("not_needed").asInt())
                    .as("%s", one)
                    .isEqualTo(2);
            assertThat(one.path("total").path("value").asLong()).isEqualTo(3);
            assertThat(one.path("total").path("relation").asText()).isEqualTo("eq");
            assertThat(requests(q, "_msearch")).isEqualTo(msearch + 1);
            assertThat(requests(q, "_search")).isEqualTo(search);
            // the newest day holds more matches than a page counts on its own (1,000): counted exactly in that trip too
            List<LogRecord> many = new ArrayList<>();
            for (int i = 0; i < 1_100; i++) {
                many.add(record("acme", "m-" + i, now.minusMillis(i + 1), "heapmark " + i)
                        .field("batch", "heap")
                        .build());
            }
            many.add(record("acme", "m-old", now.minus(Duration.ofDays(1)), "heapmark old")
                    .field("batch", "heap")
                    .build());
            QueryFixture.write(store, many);
            store.refresh();
            msearch = requests(q, "_msearch");
            search = requests(q, "_search");
            JsonNode big = json(get(q, "/api/v1/search?q=" + enc("batch:heap") + "&from=now-4d&limit=1", ACME_KEY));
            assertThat(big.path("total").path("value").asLong()).as("%s", big).isEqualTo(1_101);
            assertThat(big.path("total").path("relation").asText()).isEqualTo("eq");
            assertThat(requests(q, "_msearch")).isEqualTo(msearch + 1);
            assertThat(requests(q, "_search")).isEqualTo(search);
            // a day counted along, then visited for its keys (the newest did not fill the page): not counted again
            List<LogRecord> older = new ArrayList<>();
            older.add(record("acme", "t-new", now.minusMillis(1), "tail new")
                    .field("tail", "x")
                    .build());
            for (int i = 0; i < 1_100; i++) {
                older.add(record("acme", "t-" + i, now.minus(Duration.ofDays(1)).minusMillis(i), "tail " + i)
                        .field("tail", "x")
                        .build());
            }
            QueryFixture.write(store, older);
            store.refresh();
            msearch = requests(q, "_msearch");
            search = requests(q, "_search");
            JsonNode two = json(get(q, "/api/v1/search?q=" + enc("tail:x") + "&from=now-4d&limit=10", ACME_KEY));
            assertThat(two.path("hits")).as("%s", two).hasSize(10);
            assertThat(two.path("total").path("value").asLong()).isEqualTo(1_101);
            assertThat(two.path("total").path("relation").asText()).isEqualTo("eq");
            assertThat(requests(q, "_msearch") + requests(q, "_search"))
                    .as("the first trip, then the older day's keys; no count after")
                    .isEqualTo(msearch + search + 2);
        }
    }

    private static double requests(QueryProcess q, String endpoint) throws Exception {
        return metric(q, "logpipe_query_engine_requests_seconds_count{endpoint=\"" + endpoint + "\"");
    }

    private static double seconds(QueryProcess q, String endpoint) throws Exception {
        return metric(q, "logpipe_query_engine_requests_seconds_sum{endpoint=\"" + endpoint + "\"");
    }

    private static double metric(QueryProcess q, String prefix) throws Exception {
        for (String line : QueryFixture.get(q, "/metrics", null).body().split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(prefix + " is not on /metrics");
    }

    /**
     * The query service's budget on OpenSearch as on Lucene: with {@code limits.max_shards: 1} a search over three days
     * (three indices) searches the newest and answers {@code partial} naming {@code max_shards} and the days it left
     * out, and its cursor reaches the older days page after page.
     */
    @Test
    void aSearchOverMoreIndicesThanTheBudgetAnswersPartialNamingWhatItLeftOut(OpenSearchExtension.Node node)
            throws Exception {
        OpenSearchSettings settings = settings(node, "osbudget");
        Instant now = Instant.now();
        List<LogRecord> records = new ArrayList<>();
        for (int day = 0; day < 3; day++) {
            records.add(record("acme", "d-" + day, now.minus(Duration.ofDays(day)), "budget marker day " + day)
                    .build());
        }
        OpenSearchStore store = OpenSearchStore.open(settings);
        QueryFixture.write(store, records);
        store.refresh();
        String yaml = "store: opensearch\nopensearch:\n  hosts: [\"" + node.base()
                + "\"]\n  index_prefix: osbudget\nlimits:\n  max_shards: 1\n";
        try (QueryProcess q = QueryFixture.start(data, yaml, Clock.systemUTC())) {
            JsonNode first = json(get(q, "/api/v1/search?q=" + enc("marker") + "&from=now-4d&limit=10", ACME_KEY));
            assertThat(first.path("partial").asBoolean()).as("%s", first).isTrue();
            assertThat(first.path("partial_reasons").toString()).contains("max_shards");
            assertThat(first.path("shards").path("skipped")).as("%s", first).hasSize(2);
            assertThat(first.path("hits")).hasSize(1);
            assertThat(first.path("hits").path(0).path("record_id").asText()).isEqualTo("d-0");
            List<String> ids = new ArrayList<>();
            first.path("hits").forEach(h -> ids.add(h.path("record_id").asText()));
            JsonNode page = first;
            while (page.path("next_cursor").isTextual()) {
                page = json(get(
                        q,
                        "/api/v1/search?q=" + enc("marker") + "&from=now-4d&limit=10&cursor="
                                + enc(page.path("next_cursor").asText()),
                        ACME_KEY));
                page.path("hits").forEach(h -> ids.add(h.path("record_id").asText()));
            }
            assertThat(ids).as("the cursor goes on past the searched day").containsExactly("d-0", "d-1", "d-2");
        }
    }

    @Test
    void aSearchSavedThroughOneQueryProcessOpensThroughAnotherOnTheSameClusterForItsTenantOnly(
            OpenSearchExtension.Node node) throws Exception {
        String admin = "admin-key-0123456789";
        String yaml = "store: opensearch\nopensearch:\n  hosts: [\"" + node.base() + "\"]\n  index_prefix: ossaved\n"
                + "admin:\n  api_key_sha256: [" + dev.logpipe.query.auth.ConfiguredKeys.sha256(admin) + "]\n";
        String path = "/api/v1/saved-searches";
        try (QueryProcess one = QueryFixture.start(data.resolve("one"), yaml, Clock.systemUTC());
                QueryProcess two = QueryFixture.start(data.resolve("two"), yaml, Clock.systemUTC())) {
            var saved = QueryFixture.send(
                    one, "POST", path, ACME_KEY, "{\"name\":\"payments\",\"state\":\"q=payment&range=now-1h\"}");
            assertThat(saved.statusCode()).as(saved.body()).isEqualTo(201);
            String id = json(saved).get("id").asText();

            JsonNode opened = json(get(two, path + "/" + id, ACME_KEY));
            assertThat(opened.get("name").asText()).isEqualTo("payments");
            assertThat(opened.get("state").asText()).isEqualTo("q=payment&range=now-1h");
            assertThat(opened.has("tenant")).isFalse();
            assertThat(get(two, path + "/" + id, GLOBEX_KEY).statusCode()).isEqualTo(404);
            assertThat(json(get(two, path, GLOBEX_KEY)).get("saved_searches")).isEmpty();
            assertThat(QueryFixture.send(two, "DELETE", path + "/" + id, GLOBEX_KEY, null)
                            .statusCode())
                    .isEqualTo(404);

            assertThat(QueryFixture.send(two, "DELETE", path + "/" + id, ACME_KEY, null)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(json(get(one, path, ACME_KEY)).get("saved_searches")).isEmpty();

            // a rule group stored through one query process is in the cluster for the other
            var stored = QueryFixture.send(
                    one,
                    "PUT",
                    "/api/v1/admin/rules/acme/counted",
                    admin,
                    "name: counted\nrules:\n  - record: a:lines:count1h\n    expr: sum(count_over_time({service=\"api\"}[1h]))\n");
            assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
            JsonNode groups = json(get(two, "/api/v1/admin/rules/acme", admin)).get("groups");
            assertThat(groups).hasSize(1);
            assertThat(groups.get(0).get("source").asText()).isEqualTo("api");
            assertThat(groups.get(0).at("/rules/0/record").asText()).isEqualTo("a:lines:count1h");
        }
    }

    /** The node's settings with its own index prefix, one shard and no replica (one node). */
    private static OpenSearchSettings settings(OpenSearchExtension.Node node, String prefix) {
        OpenSearchSettings local = OpenSearchSettings.local(URI.create(node.base()));
        return new OpenSearchSettings(
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
    }
}
