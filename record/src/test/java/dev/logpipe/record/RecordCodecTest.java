package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
    private final RecordCodec codec = new RecordCodec();

    private LogRecord decode(String json) throws RecordFormatException {
        return codec.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void fullRecordRoundTrips() throws Exception {
        LogRecord r = LogRecord.builder("payment provider timed out")
                .recordId("abc")
                .eventTime(Instant.parse("2025-03-14T18:02:11.482Z"))
                .observedTime(Instant.parse("2025-03-14T18:02:11.519Z"))
                .tenantId("tenant-acme")
                .traceId("7f2a")
                .spanId("a1b2")
                .service("payment-service")
                .instanceId("i-0a1b")
                .region("us-east-1")
                .level(Level.ERROR)
                .field("order_id", "CO-9931")
                .field("timeout_ms", 3000L)
                .field("retry", true)
                .field("ratio", 0.5)
                .build();
        assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
    }

    @Property(tries = 300)
    void anyMessageRoundTrips(@ForAll String message) throws Exception {
        String clean = new String(message.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        LogRecord r = LogRecord.builder(clean).build();
        assertThat(codec.decode(codec.encode(r)).message()).isEqualTo(clean);
    }

    @Test
    void newerSchemaVersionIsReadLeniently() throws Exception {
        LogRecord r = decode("{\"schema_version\":9,\"message\":\"m\",\"new_thing\":{\"x\":1},\"level\":\"warning\"}");
        assertThat(r.schemaVersion()).isEqualTo(9);
        assertThat(r.level()).isEqualTo(Level.WARN);
        assertThat(r.message()).isEqualTo("m");
    }

    @Test
    void nestedFieldsAreFlattenedWithDots() throws Exception {
        LogRecord r = decode("{\"message\":\"m\",\"fields\":{\"http\":{\"status\":500,\"path\":\"/x\"},\"ok\":false}}");
        assertThat(r.fields())
                .containsEntry("http.status", 500L)
                .containsEntry("http.path", "/x")
                .containsEntry("ok", false);
    }

    @Test
    void badInputIsRejectedWithAReasonNamingTheField() {
        assertThatThrownBy(() -> decode("{\"level\":\"INFO\"}"))
                .isInstanceOf(RecordFormatException.class)
                .hasMessage("message is required");
        assertThatThrownBy(() -> decode("{\"message\":42}")).hasMessageContaining("message must be a string");
        assertThatThrownBy(() -> decode("{\"message\":\"m\",\"event_time\":\"yesterday\"}"))
                .hasMessageContaining("event_time must be an RFC 3339 timestamp");
        assertThatThrownBy(() -> decode("[1,2]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> decode("{\"message\":")).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> decode("{\"message\":\"m\",\"fields\":" + "{\"a\":".repeat(30) + "1" + "}".repeat(31)))
                .isInstanceOf(RecordFormatException.class);
    }

    @Test
    void timestampsAlwaysCarryAFractionAndRfc3339VariantsParse() throws Exception {
        LogRecord r = LogRecord.builder("m")
                .eventTime(Instant.parse("2025-03-14T18:02:11Z"))
                .build();
        assertThat(new String(codec.encode(r), StandardCharsets.UTF_8))
                .contains("\"event_time\":\"2025-03-14T18:02:11.000Z\"");
        assertThat(decode("{\"message\":\"m\",\"event_time\":\"2025-03-14 18:02:11.5+01:00\"}")
                        .eventTime())
                .isEqualTo(Instant.parse("2025-03-14T17:02:11.500Z"));
        assertThat(decode("{\"message\":\"m\",\"event_time\":\"2025-03-14t18:02:11.123456789z\"}")
                        .eventTime())
                .isEqualTo(Instant.parse("2025-03-14T18:02:11.123456789Z"));
    }

    @Test
    void levelAliasesNormalize() {
        assertThat(Level.normalize("warning")).isEqualTo(Level.WARN);
        assertThat(Level.normalize("ERR")).isEqualTo(Level.ERROR);
        assertThat(Level.normalize("Critical")).isEqualTo(Level.FATAL);
        assertThat(Level.normalize("verbose-ish")).isEqualTo(Level.UNKNOWN);
        assertThat(Level.normalize(null)).isEqualTo(Level.UNKNOWN);
    }

    @Test
    void timesOutsideRfc3339sYearsAreRefusedSoNothingIsWrittenThatCannotBeReadBack() throws Exception {
        for (String t : new String[] {
            "-000001-01-01T00:00:00Z", "+100000-01-01T00:00:00Z", "+10000-01-01T00:00:00Z", "0000-01-01T00:00:00+01:00"
        }) {
            assertThatThrownBy(() -> decode("{\"message\":\"m\",\"event_time\":\"" + t + "\"}"))
                    .as(t)
                    .isInstanceOf(RecordFormatException.class)
                    .hasMessageContaining("event_time must be an RFC 3339 timestamp within years 0000-9999");
        }
        assertThatThrownBy(() -> LogRecord.builder("m")
                        .observedTime(Instant.parse("+10000-01-01T00:00:00Z"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("observed_time");
        for (String t :
                new String[] {"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00+01:00"}) {
            LogRecord r = decode("{\"message\":\"m\",\"event_time\":\"" + t + "\"}");
            assertThat(codec.decode(codec.encode(r))).as(t).isEqualTo(r);
        }
    }

    @Test
    void integersBeyondALongAreKeptAsTheTextOfEveryDigit() throws Exception {
        LogRecord r = decode("{\"message\":\"m\",\"fields\":{\"big\":123456789012345678901234567890,"
                + "\"neg\":-98765432109876543210,\"long\":9223372036854775807,\"small\":42,\"ratio\":0.5}}");
        assertThat(r.fields())
                .containsEntry("big", "123456789012345678901234567890")
                .containsEntry("neg", "-98765432109876543210")
                .containsEntry("long", Long.MAX_VALUE)
                .containsEntry("small", 42L)
                .containsEntry("ratio", 0.5);
        assertThat(new String(codec.encode(r), StandardCharsets.UTF_8))
                .contains("\"big\":\"123456789012345678901234567890\"");
    }

    @Test
    void aFlattenedNameMetTwiceKeepsBothValuesAndCountsTheCollision() throws Exception {
        byte[] line = "{\"message\":\"m\",\"fields\":{\"tc.x\":\"a\",\"tc\":{\"x\":\"b\"},\"tc.x#2\":\"c\"}}"
                .getBytes(StandardCharsets.UTF_8);
        LogRecord.Builder b = codec.decodeToBuilder(line, 0, line.length);
        assertThat(b.fieldCollisions()).isEqualTo(2);
        assertThat(b.build().fields())
                .containsExactly(Map.entry("tc.x", "a"), Map.entry("tc.x#2", "b"), Map.entry("tc.x#2#2", "c"));
        LogRecord plain = decode("{\"message\":\"m\",\"fields\":{\"a\":{\"b\":1},\"c\":2}}");
        byte[] encoded = codec.encode(plain);
        assertThat(codec.decodeToBuilder(encoded, 0, encoded.length).fieldCollisions())
                .isZero();
    }

    @Test
    void aThousandValuesThatFlattenToOneNameAreKeptInLinearTime() throws Exception {
        // The 11 segments a.b.c...k can be spelled 2^10 ways ({"a.b":{"c":..}}, {"a":{"b.c":..}}, ...), all one name.
        String[] seg = "abcdefghijk".split("");
        ObjectNode fields = new ObjectMapper().createObjectNode();
        int values = RecordRules.MAX_FIELDS;
        for (int spelling = 0; spelling < values; spelling++) {
            ObjectNode at = fields;
            String key = seg[0];
            for (int i = 1; i < seg.length; i++) {
                if ((spelling & (1 << (i - 1))) != 0) {
                    at = at.has(key) ? (ObjectNode) at.get(key) : at.putObject(key);
                    key = seg[i];
                } else {
                    key = key + "." + seg[i];
                }
            }
            at.put(key, spelling);
        }
        byte[] line = ("{\"message\":\"m\",\"fields\":" + fields + "}").getBytes(StandardCharsets.UTF_8);

        LogRecord.Builder b = codec.decodeToBuilder(line, 0, line.length);

        assertThat(b.fieldCollisions()).isEqualTo(values - 1);
        Map<String, Object> kept = b.build().fields();
        assertThat(kept).hasSize(values).containsKey("a.b.c.d.e.f.g.h.i.j.k#" + values);
        Set<Object> distinct = new HashSet<>(kept.values());
        assertThat(distinct).as("every value kept").hasSize(values);
        // Probing from #2 each time builds ~values^2/2 = 500,000 names; one per collision is linear.
        assertThat(b.namesTried).isLessThanOrEqualTo(2 * values);
    }

    @Test
    void aPipelineFieldTakesItsNameAndKeepsTheValueThatHeldIt() {
        LogRecord.Builder b = LogRecord.builder("m").field("mark", "client").field("mark#2", "other");
        b.pipelineField("mark", "pipeline");
        assertThat(b.fieldCollisions()).isEqualTo(1);
        assertThat(b.build().fields())
                .containsExactly(
                        Map.entry("mark", "pipeline"), Map.entry("mark#2", "other"), Map.entry("mark#3", "client"));
        assertThat(LogRecord.builder("m").pipelineField("mark", "p").fieldCollisions())
                .isZero();
    }

    @Test
    void theRulesRefuseWhatTheIndexerCannotIndex() {
        LogRecord.Builder b = LogRecord.builder("m").tenantId("acme");
        assertThat(RecordRules.problem(b.build())).isNull();
        assertThat(RecordRules.problem(LogRecord.builder("m").build())).isEqualTo("tenant_id is missing");
        for (int i = 0; i <= RecordRules.MAX_FIELDS; i++) {
            b.field("f" + i, i);
        }
        assertThat(RecordRules.problem(b.build())).contains("more than 1000 fields");
        assertThat(RecordRules.problem(LogRecord.builder("m")
                        .tenantId("acme")
                        .field("n".repeat(RecordRules.MAX_FIELD_NAME_LENGTH + 1), 1)
                        .build()))
                .contains("longer than 1024");
        assertThat(RecordId.problem("order-1:a_b.c-d")).isNull();
        assertThat(RecordId.problem("order-1/a")).contains("character 8"); // one segment of a URL
        assertThat(RecordId.problem("..")).isNotNull();
        assertThat(RecordId.problem("a b")).contains("character 2");
        assertThat(RecordRules.problem(
                        LogRecord.builder("m").tenantId("acme").recordId("../x").build()))
                .contains("character 3");
    }
}
