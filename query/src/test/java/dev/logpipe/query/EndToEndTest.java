package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.testkit.Integration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Kafka → a real indexer → committed shards → a separate query service on the same data directory. */
@Integration
class EndToEndTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path data;

    @Test
    void recordsTheIndexerCommitsAreSearchableByTheirTenantOnlyWhileTheIndexerKeepsWriting() throws Exception {
        KAFKA.createTopic("qe.records", 2);
        KAFKA.createTopic("qe.dead-letter", 1);
        String yaml = """
                listen: 127.0.0.1:0
                data_dir: %s
                kafka:
                  bootstrap_servers: %s
                  topic: qe.records
                  dead_letter_topic: qe.dead-letter
                  group_id: qe-indexer
                commit:
                  interval: 200ms
                refresh:
                  interval: 100ms
                index:
                  ram_buffer: 32MiB
                """.formatted(data, KAFKA.bootstrapServers());
        Instant now = Instant.now();
        try (Indexer indexer = Indexer.start(new IndexerConfigLoader().parse(yaml, "test"), Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ProducerConfig.ACKS_CONFIG,
                                "all"),
                        new ByteArraySerializer(),
                        new ByteArraySerializer());
                QueryProcess q = QueryFixture.start(data, "", Clock.systemUTC())) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                String tenant = i % 2 == 0 ? "acme" : "globex";
                batch.append("{\"schema_version\":3,\"record_id\":\"e-")
                        .append(i)
                        .append("\",\"tenant_id\":\"")
                        .append(tenant)
                        .append("\",\"event_time\":\"")
                        .append(now.minusSeconds(i))
                        .append("\",\"observed_time\":\"")
                        .append(now)
                        .append("\",\"level\":\"ERROR\",\"message\":")
                        .append("\"payment failed for order CO-")
                        .append(i)
                        .append("\"}\n");
            }
            p.send(new ProducerRecord<>("qe.records", batch.toString().getBytes(StandardCharsets.UTF_8)))
                    .get();
            String path = "/api/v1/search?limit=1000&from=now-1h&to=now%2B1h&q=" + enc("payment AND level:ERROR");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> json(get(q, path, ACME_KEY)).get("hits").size() == 100
                            && json(get(q, path, GLOBEX_KEY)).get("hits").size() == 100); // two shards, two refreshes
            JsonNode a = json(get(q, path, ACME_KEY));
            a.get("hits").forEach(h -> assertThat(h.get("tenant_id").asText()).isEqualTo("acme"));
            JsonNode g = json(get(q, path, GLOBEX_KEY));
            assertThat(g.get("hits")).hasSize(100);
            g.get("hits").forEach(h -> assertThat(h.get("tenant_id").asText()).isEqualTo("globex"));
            JsonNode st = json(get(q, "/api/v1/status", ACME_KEY));
            assertThat(st.get("newest_observed_time").asText()).isNotEmpty();
            // the indexer still owns the directory: more records keep arriving and become searchable
            p.send(new ProducerRecord<>(
                            "qe.records",
                            ("{\"schema_version\":3,\"record_id\":\"late\",\"tenant_id\":"
                                            + "\"acme\",\"event_time\":\"" + now + "\",\"observed_time\":\"" + now
                                            + "\",\"message\":"
                                            + "\"late arrival\"}")
                                    .getBytes(StandardCharsets.UTF_8)))
                    .get();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> json(get(q, "/api/v1/search?from=now-1h&to=now%2B1h&q=late", ACME_KEY))
                                    .get("hits")
                                    .size()
                            == 1);
        }
    }
}
