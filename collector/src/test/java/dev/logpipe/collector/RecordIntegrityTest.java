package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24, items 3 and 10, through a real collector into a real broker: integers past 2^63 keep every digit, two
 * values that flatten to one name are both kept and counted in the answer, every message names its tenant in a
 * header, a name taken twice by redaction or by a pipeline marker keeps both values, and a record the indexer would
 * refuse is dead-lettered here, in the answer, instead of acknowledged.
 */
@Integration
class RecordIntegrityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final CollectorExtension COLLECTOR = new CollectorExtension("integrity");

    private static List<ConsumerRecord<String, String>> topic(String name) throws Exception {
        return TopicContents.readAll(COLLECTOR.bootstrapServers(), name, Duration.ofSeconds(20));
    }

    private static JsonNode record(String marker) throws Exception {
        return record("integrity.records", marker);
    }

    private static JsonNode record(String topic, String marker) throws Exception {
        for (String line : TopicContents.recordLines(topic(topic))) {
            JsonNode n = JSON.readTree(line);
            if (n.path("message").asText().equals(marker)) {
                return n;
            }
        }
        throw new AssertionError("no record " + marker);
    }

    @Test
    void bigIntegersKeepEveryDigitAndCollidingNamesKeepBothValuesAndAreReported() throws Exception {
        String body = """
                {"message":"i10 big","fields":{"big":123456789012345678901234567890,"neg":-98765432109876543210,"max":9223372036854775807}}
                {"message":"i10 collision","fields":{"tc.x":"a","tc":{"x":"b"}}}
                {"message":"i10 plain","fields":{"tc":{"x":"only"},"n":42}}
                """;
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(3);
        assertThat(answer.get("field_collisions").asInt()).isEqualTo(1);
        assertThat(answer.get("redacted").isObject()).isTrue();
        assertThat(r.headers().firstValue("Logpipe-Field-Collisions")).hasValue("1");

        JsonNode big = record("i10 big").get("fields");
        assertThat(big.get("big").asText()).isEqualTo("123456789012345678901234567890");
        assertThat(big.get("neg").asText()).isEqualTo("-98765432109876543210");
        assertThat(big.get("max").isIntegralNumber()).isTrue();
        assertThat(big.get("max").asLong()).isEqualTo(Long.MAX_VALUE);
        JsonNode collision = record("i10 collision").get("fields");
        assertThat(collision.get("tc.x").asText()).isEqualTo("a");
        assertThat(collision.get("tc.x#2").asText()).isEqualTo("b");
        // a record without either is written as it always was
        assertThat(TopicContents.recordLines(topic("integrity.records")))
                .anyMatch(l -> l.endsWith(",\"level\":\"UNKNOWN\",\"message\":\"i10 plain\","
                        + "\"fields\":{\"tc.x\":\"only\",\"n\":42}}"));
    }

    @Test
    void namesTakenTwiceByRedactionOrByTheWithheldMarkerKeepEveryValueAndAreReported() throws Exception {
        String yaml = """
                listen: 127.0.0.1:0
                tenants:
                  - id: acme
                    api_key_sha256: [%s]
                kafka:
                  bootstrap_servers: %s
                  topic: integrity-redact.records
                  dead_letter_topic: integrity-redact.dead-letter
                  partitions: 1
                  replication_factor: 1
                  min_insync_replicas: 1
                  delivery_timeout: 5s
                redaction:
                  max_scan_bytes: 1KiB
                  rules:
                    - name: internal_ticket
                      pattern: 'TKT-[0-9]{6}'
                """.formatted(ApiKeys.sha256(ACME_KEY), COLLECTOR.bootstrapServers());
        // Both names redact to [REDACTED:internal_ticket]; the second then meets the client's own "...#2".
        String body = "{\"message\":\"i3 renamed\",\"fields\":{\"[REDACTED:internal_ticket]#2\":3,"
                + "\"TKT-000001\":1,\"TKT-000002\":2}}\n"
                + "{\"message\":\"i3 withheld\",\"fields\":{\"logpipe.redaction.withheld\":\"client\",\"big\":\""
                + "b".repeat(2000) + "\"}}\n"
                + "{\"message\":\"i3 flagged\",\"event_time\":\"2001-01-01T00:00:00Z\","
                + "\"fields\":{\"logpipe.event_time.flag\":\"client\"}}\n";
        try (CollectorFixture c = CollectorFixture.start(new CollectorConfigLoader().parse(yaml, "test"))) {
            HttpResponse<String> r = c.post(ACME_KEY, body);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode answer = JSON.readTree(r.body());
            assertThat(answer.get("accepted").asInt()).as(r.body()).isEqualTo(3);
            assertThat(answer.get("field_collisions").asInt()).as(r.body()).isEqualTo(3);
            assertThat(r.headers().firstValue("Logpipe-Field-Collisions")).hasValue("3");
        }

        JsonNode renamed = record("integrity-redact.records", "i3 renamed").get("fields");
        assertThat(renamed.toString()).doesNotContain("TKT-");
        assertThat(renamed.get("[REDACTED:internal_ticket]").asInt()).isEqualTo(1);
        assertThat(renamed.get("[REDACTED:internal_ticket]#2").asInt()).isEqualTo(3);
        assertThat(renamed.get("[REDACTED:internal_ticket]#3").asInt()).isEqualTo(2);
        assertThat(renamed.size()).isEqualTo(3);
        JsonNode withheld = record("integrity-redact.records", "i3 withheld").get("fields");
        assertThat(withheld.get("logpipe.redaction.withheld").asText()).isEqualTo("big");
        assertThat(withheld.get("logpipe.redaction.withheld#2").asText()).isEqualTo("client");
        assertThat(withheld.has("big")).isFalse();
        JsonNode flagged = record("integrity-redact.records", "i3 flagged").get("fields");
        assertThat(flagged.get("logpipe.event_time.flag").asText()).isEqualTo("past");
        assertThat(flagged.get("logpipe.event_time.flag#2").asText()).isEqualTo("client");
    }

    @Test
    void everyMessageNamesItsTenantInAHeaderAndAnUnindexableRecordIsDeadLetteredInTheAnswer() throws Exception {
        StringBuilder fields = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            fields.append(i == 0 ? "" : ",")
                    .append("\"f")
                    .append(i)
                    .append("\":")
                    .append(i);
        }
        String body = "{\"message\":\"i3 kept\"}\n"
                + "{\"message\":\"i3 year\",\"event_time\":\"+100000-01-01T00:00:00Z\"}\n"
                + "{\"message\":\"i3 flagged past 1000\",\"event_time\":\"2099-01-01T00:00:00Z\",\"fields\":{"
                + fields + "}}\n"
                + "{\"message\":\"i3 lengthened\",\"fields\":{\"" + "n".repeat(1000) + "AKIAIOSFODNN7EXAMPLE\":1}}\n";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).as(r.body()).isEqualTo(1);
        assertThat(answer.get("dead_lettered").asInt()).isEqualTo(3);
        assertThat(answer.get("errors").get(0).get("detail").asText())
                .contains("event_time must be an RFC 3339 timestamp within years 0000-9999");
        assertThat(answer.get("errors").get(1).get("detail").asText())
                .contains("more than 1000 fields")
                .contains("once the collector flagged and redacted it");
        assertThat(answer.get("errors").get(2).get("detail").asText()).contains("longer than 1024 characters");

        for (String t : List.of("integrity.records", "integrity.dead-letter")) {
            assertThat(topic(t)).isNotEmpty().allSatisfy(m -> {
                Header h = m.headers().lastHeader(RecordCodec.TENANT_HEADER);
                assertThat(h).as("%s: %s", t, m.value()).isNotNull();
                assertThat(new String(h.value(), StandardCharsets.UTF_8)).isEqualTo("acme");
            });
        }
    }
}
