package dev.logpipe.indexer.e2e;

import static dev.logpipe.indexer.IndexerFixture.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.collector.Collector;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@Integration
class IndexerEndToEndTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path data;

    private void topics(String prefix, int partitions) throws Exception {
        KAFKA.createTopic(prefix + ".records", partitions);
        KAFKA.createTopic(prefix + ".dead-letter", 1);
    }

    @Test
    void recordsPostedToACollectorAreFoundInTheRightShardWithTypedFields() throws Exception {
        String yaml = """
                listen: 127.0.0.1:0
                tenants:
                  - id: acme
                    api_key_sha256: [%s]
                kafka:
                  bootstrap_servers: %s
                  topic: e2e.records
                  dead_letter_topic: e2e.dead-letter
                  partitions: 2
                  replication_factor: 1
                  min_insync_replicas: 1
                """.formatted(ApiKeys.sha256("acme-key-0123456789"), KAFKA.bootstrapServers());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant yesterday = now.minus(Duration.ofDays(1));
        try (Collector collector = Collector.start(
                        new CollectorConfigLoader().parse(yaml, "test"), Clock.systemUTC(), Duration.ofSeconds(60));
                Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "e2e", data, "", Clock.systemUTC())) {
            String body = "{\"record_id\":\"r-1\",\"event_time\":\"" + yesterday + "\",\"level\":\"warning\","
                    + "\"service\":\"billing\",\"tenant_id\":\"globex\",\"message\":\"payment provider timed out "
                    + "order_id=CO-9931\",\"fields\":{\"took_ms\":512,\"ok\":false,\"http\":{\"path\":\"/api/v1/users\"}}}\n"
                    + "{\"record_id\":\"r-2\",\"message\":\"second\",\"fields\":{\"took_ms\":12.5}}\n"
                    + "this is not json\n";
            HttpResponse<String> answer = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                            + collector.address().getPort() + "/api/v1/logs"))
                                    .header("Authorization", "Bearer acme-key-0123456789")
                                    .POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);

            ShardId old = ShardId.records("acme", LocalDate.ofInstant(yesterday, ZoneOffset.UTC));
            ShardId today = ShardId.records("acme", LocalDate.ofInstant(now, ZoneOffset.UTC));
            List<ShardId> both = List.of(old, today);
            await().atMost(WAIT).until(() -> count(indexer.store(), both, "acme", "*:*") == 2);
            // routed by event_time: r-1 is in yesterday's shard, r-2 (event_time filled by the collector) in today's
            assertThat(count(indexer.store(), List.of(old), "acme", "record_id:r-1"))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), List.of(today), "acme", "record_id:r-2"))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), both, "globex", "*:*")).isZero(); // the payload's tenant was overwritten
            assertThat(count(indexer.store(), both, "acme", "fields.took_ms:>500 AND level:WARN"))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), both, "acme", "fields.took_ms:[10 TO 13]"))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), both, "acme", "fields.ok:false AND service:billing"))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), both, "acme", "fields.http.path:\"/api/v1/users\""))
                    .isEqualTo(1);
            assertThat(count(indexer.store(), both, "acme", "9931")).isEqualTo(1);
            List<Hit> hits = StoreReads.hits(new LiveShards(indexer.store()), both, "acme", "CO-9931", 10);
            JsonNode hit = JSON.readTree(hits.get(0).source());
            assertThat(hit.get("tenant_id").asText()).isEqualTo("acme");
            assertThat(hit.get("observed_time").asText()).isNotEmpty();
            assertThat(hit.get("fields").get("http.path").asText()).isEqualTo("/api/v1/users");
            // the collector's dead letter (tenant acme) lands in acme's dead-letter shard, with its reason
            ShardId dl = ShardId.deadLetters("acme", LocalDate.ofInstant(now, ZoneOffset.UTC));
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(dl), "acme", "reason:SCHEMA_INVALID") == 1);
            await().atMost(WAIT).until(() -> indexer.store().metadata(today).isPresent());
            assertThat(indexer.store().metadata(today).orElseThrow().fields()).containsKey("took_ms");
        }
    }

    @Test
    void oneKafkaMessageOfAThousandRecordsYieldsAThousandDocuments() throws Exception {
        topics("thousand", 1);
        Instant t = Instant.parse("2026-12-01T08:00:00Z");
        StringBuilder value = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            value.append(Lines.record("acme", "id-" + i, "line " + i, t.plusMillis(i)));
        }
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(),
                        "thousand",
                        data,
                        "retention:\n  default_days: 36500\n",
                        Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            IndexerFixture.send(p, "thousand.records", value.toString());
            ShardId shard = ShardId.records("acme", LocalDate.parse("2026-12-01"));
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(shard), "acme", "*:*") == 1000);
        }
    }

    @Test
    void aReplayLeavesOneDocumentAndTwoTenantsWithOneIdKeepTwo() throws Exception {
        topics("replay", 2);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        ShardId acme = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
        ShardId globex = ShardId.records("globex", LocalDate.ofInstant(t, ZoneOffset.UTC));
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            try (Indexer indexer =
                    IndexerFixture.start(KAFKA.bootstrapServers(), "replay", data, "", Clock.systemUTC())) {
                for (int i = 0; i < 3; i++) { // a forwarder crash, a collector retry: the same record again
                    IndexerFixture.send(p, "replay.records", Lines.record("acme", "same-id", "hello", t));
                }
                IndexerFixture.send(p, "replay.records", Lines.record("globex", "same-id", "hello", t));
                await().atMost(WAIT)
                        .until(() -> indexer.stages().snapshot().stream()
                                        .filter(s -> s.partition().startsWith("replay.records"))
                                        .mapToLong(s -> s.committed())
                                        .sum()
                                == 4);
                assertThat(count(indexer.store(), List.of(acme), "acme", "*:*")).isEqualTo(1);
                assertThat(count(indexer.store(), List.of(globex), "globex", "*:*"))
                        .isEqualTo(1);
            }
            // after a restart the shards are not fresh: the replayed id must still replace, not duplicate
            try (Indexer indexer =
                    IndexerFixture.start(KAFKA.bootstrapServers(), "replay", data, "", Clock.systemUTC())) {
                IndexerFixture.send(p, "replay.records", Lines.record("acme", "same-id", "hello again", t));
                await().atMost(WAIT).until(() -> count(indexer.store(), List.of(acme), "acme", "again") == 1);
                assertThat(count(indexer.store(), List.of(acme), "acme", "*:*")).isEqualTo(1);
            }
        }
    }

    @Test
    void aPoisonedMessageIsDeadLetteredWhileItsPartitionKeepsFlowing() throws Exception {
        topics("poison", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        ShardId shard = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "poison", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            IndexerFixture.send(p, "poison.records", Lines.record("acme", "before", "before", t));
            IndexerFixture.send(
                    p,
                    "poison.records",
                    "{\"message\":\"no tenant\"}\n\u0000garbage{{{\n"
                            + "{\"message\":\"bad time\",\"tenant_id\":\"acme\",\"event_time\":\"9999-01-01T00:00:00Z\","
                            + "\"observed_time\":\"9999-01-01T00:00:00Z\"}\n"
                            // no RFC 3339 time (a year of six digits): the record is not valid, the same as at a
                            // collector
                            + "{\"message\":\"no time\",\"tenant_id\":\"acme\",\"event_time\":\"+999999-01-01T00:00:00Z\"}\n"
                            + Lines.record("acme", "inside", "inside", t));
            IndexerFixture.send(p, "poison.records", Lines.record("acme", "after", "after", t));
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(shard), "acme", "*:*") == 4);
            // the record with absurd times is kept, routed by the broker's append time and marked
            assertThat(count(indexer.store(), List.of(shard), "acme", "fields._event_time_out_of_range:true"))
                    .isEqualTo(1);
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    TopicContents.readAll(KAFKA.bootstrapServers(), "poison.dead-letter", WAIT).stream()
                                            .map(r -> reason(r.value()))
                                            .toList())
                            .containsExactlyInAnyOrder("NO_TENANT", "SCHEMA_INVALID", "SCHEMA_INVALID"));
            assertThat(indexer.registry().scrape())
                    .contains("logpipe_indexer_records_dead_lettered_total{reason=\"NO_TENANT\"} 1.0");
        }
    }

    private static String reason(String deadLetter) {
        try {
            return JSON.readTree(deadLetter).get("reason").asText();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theStatusUnderLagAlwaysOrdersTheStages() throws Exception {
        topics("lag", 3);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "lag", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            await().atMost(WAIT)
                    .until(() -> IndexerFixture.get(indexer, "/readyz", null).statusCode() == 200);
            Thread producer = new Thread(() -> {
                try {
                    for (int m = 0; m < 60; m++) {
                        StringBuilder v = new StringBuilder();
                        for (int i = 0; i < 500; i++) {
                            v.append(Lines.record("acme", "lag-" + m + "-" + i, "lagging " + i, t));
                        }
                        p.send(new ProducerRecord<>(
                                "lag.records",
                                Integer.toString(m).getBytes(),
                                v.toString().getBytes()));
                    }
                    p.flush();
                } catch (RuntimeException e) {
                    throw e;
                }
            });
            producer.start();
            int samples = 0;
            boolean sawLag = false;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode status = JSON.readTree(
                        IndexerFixture.get(indexer, "/api/v1/status", null).body());
                samples++;
                long queryableTotal = 0;
                for (var it = status.get("partitions").fields(); it.hasNext(); ) {
                    var e = it.next();
                    JsonNode s = e.getValue();
                    long d = s.get("durable").get("offset").asLong();
                    long r = s.get("read").get("offset").asLong();
                    long i = s.get("indexed").get("offset").asLong();
                    long q = s.get("queryable").get("offset").asLong();
                    long c = s.get("committed").get("offset").asLong();
                    assertThat(q).as("queryable <= indexed in %s", status).isLessThanOrEqualTo(i);
                    assertThat(i).as("indexed <= read in %s", status).isLessThanOrEqualTo(r);
                    assertThat(r).as("read <= durable in %s", status).isLessThanOrEqualTo(d);
                    assertThat(c).as("committed <= indexed in %s", status).isLessThanOrEqualTo(i);
                    sawLag |= q < d;
                    if (e.getKey().startsWith("lag.records")) {
                        queryableTotal += q;
                    }
                }
                if (queryableTotal == 30_000) {
                    break;
                }
            }
            producer.join();
            assertThat(samples).isGreaterThan(5);
            assertThat(sawLag).as("sampled while the indexer lagged").isTrue();
            ShardId shard = ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
            assertThat(count(indexer.store(), List.of(shard), "acme", "*:*")).isEqualTo(30_000);
        }
    }
}
