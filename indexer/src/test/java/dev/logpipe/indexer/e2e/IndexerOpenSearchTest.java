package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.config.ConfigException;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code store: opensearch}: the indexer consumes the records topic as always and writes to a real OpenSearch 2.19 node,
 * one index per tenant and day, a replayed record overwriting its document and two tenants kept apart; the status API
 * answers the same way.
 */
@Integration
@ExtendWith(OpenSearchExtension.class)
class IndexerOpenSearchTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path data;

    static String opensearch(OpenSearchExtension.Node node, String prefix) {
        return "store: opensearch\nopensearch:\n  hosts: [\"" + node.base() + "\"]\n  index_prefix: " + prefix
                + "\n  replicas: 0\n  refresh_interval: 100ms\n";
    }

    long count(OpenSearchExtension.Node node, String pattern, String query) throws Exception {
        node.send("POST", "/" + pattern + "/_refresh", null);
        OpenSearchExtension.Answer a = node.send(
                "POST", "/" + pattern + "/_count", Map.of("query", Map.of("query_string", Map.of("query", query))));
        return a.status() == 200 ? a.body().path("count").asLong() : -1;
    }

    @Test
    void recordsFromKafkaBecomeOneDocumentEachInTheirTenantsIndex(OpenSearchExtension.Node node) throws Exception {
        KAFKA.createTopic("os.records", 2);
        KAFKA.createTopic("os.dead-letter", 1);
        Instant t = Instant.now();
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(), "os", data, opensearch(node, "osidx"), Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 300; i++) {
                batch.append(Lines.record("acme", "id-" + i, "order_id=CO-" + i + " shipped", t.plusMillis(i)));
            }
            IndexerFixture.send(p, "os.records", batch.toString());
            IndexerFixture.send(
                    p, "os.records", Lines.record("acme", "id-7", "order_id=CO-7 shipped", t.plusMillis(7)));
            IndexerFixture.send(p, "os.records", Lines.record("globex", "id-7", "another tenant", t));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> count(node, "osidx-records-acme-*", "*") == 300
                            && count(node, "osidx-records-globex-*", "*") == 1);
            assertThat(count(node, "osidx-records-acme-*", "message:co-7")).isEqualTo(1);
            assertThat(count(node, "osidx-records-acme-*", "tenant_id:globex")).isZero();
            ObjectMapper json = new ObjectMapper();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> json.readTree(IndexerFixture.get(indexer, "/api/v1/status", null)
                                            .body())
                                    .path("totals")
                                    .path("committed")
                                    .asLong()
                            == 3);
            JsonNode totals = json.readTree(
                            IndexerFixture.get(indexer, "/api/v1/status", null).body())
                    .path("totals");
            assertThat(totals.path("indexed").asLong()).as("%s", totals).isEqualTo(3);
            assertThat(totals.path("queryable").asLong()).as("%s", totals).isEqualTo(3);
            String metrics = IndexerFixture.get(indexer, "/metrics", null).body();
            assertThat(requests(metrics, "_bulk")).as("bulks sent, in /metrics").isPositive();
            assertThat(requests(metrics, "_refresh"))
                    .as("refreshes sent, in /metrics")
                    .isPositive();
            assertThatThrownBy(indexer::store)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("OpenSearch");
        }
    }

    /** The requests sent to an endpoint, as the indexer's /metrics report them. */
    private static double requests(String metrics, String endpoint) {
        String prefix = "logpipe_indexer_engine_requests_seconds_count{endpoint=\"" + endpoint + "\"";
        return metrics.lines()
                .filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    @Test
    void aLegalHoldPlacedThroughOneIndexerKeepsTheDayFromEveryIndexerOnTheCluster(OpenSearchExtension.Node node)
            throws Exception {
        KAFKA.createTopic("holds.records", 2);
        KAFKA.createTopic("holds.dead-letter", 1);
        java.time.LocalDate day = java.time.LocalDate.parse("2026-11-20");
        Instant from = day.atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
        // a hold an earlier version kept in indexer b's data directory is moved into the cluster, not lost
        Files.createDirectories(data.resolve("b"));
        Files.writeString(data.resolve("b").resolve("legal-holds.json"), """
                {"holds":[{"id":"old-1","tenant_id":"globex","from":"2026-10-01T00:00:00Z","to":"2026-10-02T00:00:00Z",
                "reason":"from the file","who":"legal","created":"2026-10-01T00:00:00Z"}]}
                """);
        try (Indexer a = IndexerFixture.start(
                        KAFKA.bootstrapServers(),
                        "holds",
                        data.resolve("a"),
                        opensearch(node, "holdsidx"),
                        Clock.systemUTC());
                Indexer b = IndexerFixture.start(
                        KAFKA.bootstrapServers(),
                        "holds",
                        data.resolve("b"),
                        opensearch(node, "holdsidx"),
                        Clock.systemUTC())) {
            assertThat(a.holds().holding("globex", java.time.LocalDate.parse("2026-10-01")))
                    .get()
                    .extracting(h -> h.reason())
                    .isEqualTo("from the file");
            assertThat(Files.exists(data.resolve("b").resolve("legal-holds.json.imported")))
                    .isTrue();
            assertThat(a.holds().remove("old-1", "legal")).isPresent();
            var hold = a.holds().add("acme", from, from.plusSeconds(3600), "case 42", "legal@example.com");

            // the other indexer's retention sees it (it reads the cluster's holds at each decision)
            assertThat(b.holds().holding("acme", day)).contains(hold);
            assertThat(b.holds().holding("globex", day)).isEmpty();
            assertThat(b.holds().list()).containsExactly(hold);
            assertThat(b.holds().remove(hold.id(), "legal@example.com")).contains(hold);
            assertThat(a.holds().holding("acme", day)).isEmpty();
            assertThat(a.holds().remove(hold.id(), "legal@example.com")).isEmpty();
            assertThat(Files.exists(data.resolve("a").resolve("legal-holds.json")))
                    .isFalse();
        }
    }

    @Test
    void theStoreIsChosenByKeyAndAnIncompleteChoiceFailsNamingIt() {
        IndexerConfigLoader loader = new IndexerConfigLoader();
        String base = IndexerFixture.yaml("127.0.0.1:9092", "x", data, "");
        assertThatThrownBy(() -> loader.parse(base + "store: opensearch\n", "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("opensearch: required with store: opensearch");
        assertThatThrownBy(() -> loader.parse(base + "opensearch:\n  hosts: [\"http://h:9200\"]\n", "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("only with store: opensearch");
        assertThatThrownBy(() -> loader.parse(base + "store: elastic\n", "test"))
                .hasMessageContaining("store: lucene or opensearch, was \"elastic\"");
        assertThatThrownBy(
                        () -> loader.parse(base + "store: opensearch\nopensearch:\n  hosts: [\"ftp://h\"]\n", "test"))
                .hasMessageContaining("opensearch.hosts[0]");
        assertThatThrownBy(() -> loader.parse(
                        base + "store: opensearch\nopensearch:\n  hosts: [\"http://h:9200\"]\n  index_prefix: Bad\n",
                        "test"))
                .hasMessageContaining("opensearch.index_prefix");
        assertThatThrownBy(() -> loader.parse(
                        base + "store: opensearch\nopensearch:\n  hosts: [\"http://h:9200\"]\n  password_env: NOPE_X\n"
                                + "  username: u\n",
                        "test"))
                .hasMessageContaining("opensearch.password_env: the environment variable NOPE_X is not set");
    }
}
