package dev.logpipe.indexer.e2e;

import static dev.logpipe.indexer.IndexerFixture.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.testkit.Integration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, item 3: a records-topic line the indexer cannot read is dead-lettered under the tenant of its Kafka
 * message (the collector's {@code logpipe.tenant} header, else a {@code tenant_id} read leniently, else
 * {@code kafka.default_tenant}), so it lands in that tenant's dead-letter shard instead of being skipped for want of
 * a tenant.
 */
@Integration
class DeadLetterTenantTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path data;

    private static void send(KafkaProducer<byte[], byte[]> p, String topic, String tenantHeader, String value)
            throws Exception {
        ProducerRecord<byte[], byte[]> m = new ProducerRecord<>(topic, null, value.getBytes(StandardCharsets.UTF_8));
        if (tenantHeader != null) {
            m.headers().add(RecordCodec.TENANT_HEADER, tenantHeader.getBytes(StandardCharsets.UTF_8));
        }
        p.send(m).get();
    }

    @Test
    void aLineTheIndexerCannotReadIsADeadLetterOfTheTenantOfItsMessage() throws Exception {
        KAFKA.createTopic("dlt.records", 1);
        KAFKA.createTopic("dlt.dead-letter", 1);
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        try (Indexer indexer = IndexerFixture.start(
                        KAFKA.bootstrapServers(), "dlt", data, "", Clock.systemUTC(), "  default_tenant: fallback\n");
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            // what an earlier collector wrote for "-000001-01-01T00:00:00Z": a year no RFC 3339 reader takes back
            send(
                    p,
                    "dlt.records",
                    "acme",
                    "{\"schema_version\":3,\"record_id\":\"y1\",\"event_time\":\"-1-01-01T00:00:00.000Z\","
                            + "\"tenant_id\":\"acme\",\"message\":\"dlt-year-minus-one\"}\n");
            send(p, "dlt.records", "globex", "\u0000not json at all dlt-garbage\n");
            // no header (not from a collector): the tenant_id read leniently from the line
            send(
                    p,
                    "dlt.records",
                    null,
                    "{\"tenant_id\":\"initech\",\"message\":\"dlt-peeked\",\"event_time\":\"+100000-01-01T00:00:00Z\"}\n");
            // neither: the topic's default tenant
            send(p, "dlt.records", null, "{\"message\":\"dlt-default\",\"event_time\":\"never\"}\n");
            for (String tenant : List.of("acme", "globex", "initech", "fallback")) {
                ShardId shard = ShardId.deadLetters(tenant, today);
                await().atMost(WAIT)
                        .alias(tenant)
                        .until(() -> count(indexer.store(), List.of(shard), tenant, "reason:SCHEMA_INVALID") == 1);
            }
            String metrics = indexer.registry().scrape();
            assertThat(metrics).doesNotContain("logpipe_indexer_dead_letters_skipped_total{");
            assertThat(metrics).contains("logpipe_indexer_records_dead_lettered_total{reason=\"SCHEMA_INVALID\"} 4.0");
        }
    }

    /**
     * A record another producer wrote with a {@code record_id} no context URL can reach ({@code a/b}, {@code ..}) is a
     * {@code SCHEMA_INVALID} dead letter of its tenant, as the collector would have refused it; before, it was indexed.
     */
    @Test
    void aRecordWithABadRecordIdIsADeadLetterOfItsTenant() throws Exception {
        KAFKA.createTopic("rid.records", 1);
        KAFKA.createTopic("rid.dead-letter", 1);
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        String now = Instant.now().toString();
        try (Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), "rid", data, "", Clock.systemUTC());
                KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            for (String id : List.of("a/b", "..", "fine-1")) {
                send(
                        p,
                        "rid.records",
                        null,
                        "{\"schema_version\":3,\"record_id\":\"" + id + "\",\"event_time\":\"" + now
                                + "\",\"tenant_id\":\"acme\",\"message\":\"rid " + id + "\"}\n");
            }
            ShardId dead = ShardId.deadLetters("acme", today);
            await().atMost(WAIT)
                    .until(() -> count(indexer.store(), List.of(dead), "acme", "reason:SCHEMA_INVALID") == 2);
            await().atMost(WAIT)
                    .until(() -> count(indexer.store(), List.of(ShardId.records("acme", today)), "acme", "*:*") == 1);
        }
    }
}
