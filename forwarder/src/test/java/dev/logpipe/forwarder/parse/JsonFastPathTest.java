package dev.logpipe.forwarder.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.time.TimeLayout;
import dev.logpipe.forwarder.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The one-pass JSON reader takes the common lines, leaves the rest, and reads what it takes like Jackson does. */
class JsonFastPathTest {
    private static final TimeParser RFC3339 = TimeLayout.RFC3339.newParser(ZoneOffset.UTC, null, InstantSource.system());
    private static final ObjectMapper JSON = new ObjectMapper();
    private final JsonFastPath fast = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339);
    private final JsonLineReader slow = new JsonLineReader(KeyMapping.DEFAULT, null, RFC3339);

    private boolean fast(String line, StructuredLine out) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        out.reset();
        return fast.read(b, 0, b.length, out);
    }

    /** The Jackson path alone: a transform field forces it (and names no key of these lines). */
    private boolean slow(String line, StructuredLine out) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return slow.read(b, 0, b.length, Map.of("zz-not-a-key", "x"), out);
    }

    private static JsonNode fields(StructuredLine s) throws Exception {
        JsonBuffer f = s.fieldsJson();
        String body = new String(f.array(), 0, f.size(), StandardCharsets.UTF_8);
        return JSON.readTree("{" + (body.isEmpty() ? "" : body.substring(1)) + "}");
    }

    private static String message(StructuredLine s) throws Exception {
        JsonBuffer m = s.messageJson();
        return m.size() == 0 ? null : JSON.readValue(m.array(), 0, m.size(), String.class);
    }

    private void sameAsJackson(String line) throws Exception {
        StructuredLine a = new StructuredLine();
        StructuredLine b = new StructuredLine();
        assertThat(fast(line, a)).as("fast path takes %s", line).isTrue();
        assertThat(slow(line, b)).isTrue();
        assertThat(message(a)).isEqualTo(message(b));
        assertThat(a.level()).isEqualTo(b.level());
        assertThat(a.service()).isEqualTo(b.service());
        assertThat(a.traceId()).isEqualTo(b.traceId());
        assertThat(a.spanId()).isEqualTo(b.spanId());
        assertThat(a.time()).isEqualTo(b.time());
        assertThat(a.badTime()).isEqualTo(b.badTime());
        assertThat(fields(a)).isEqualTo(fields(b));
    }

    @Test
    void commonLinesAreReadInOnePassLikeJacksonReadsThem() throws Exception {
        sameAsJackson("{\"time\":\"2026-12-01T08:10:00.000Z\",\"level\":\"INFO\",\"thread\":\"t-3\",\"msg\":\"GET /x\","
                + "\"http\":{\"method\":\"GET\",\"status\":200,\"took\":1.5e3},\"ok\":true,\"gone\":null,\"seq\":-0}");
        sameAsJackson(" { \"msg\" : \"tab\\tquote\\\" slash\\/ nl\\n\" , \"caf\u00e9\" : 1 } ".replace("caf\u00e9", "cafe"));
        sameAsJackson("{\"message\":\"caf\u00e9 \ud83d\ude00\",\"msg\":\"second\",\"a\":1,\"a\":2,\"log\":{\"offset\":5}}");
        sameAsJackson("{\"ts\":\"not a time\",\"service\":{\"name\":\"billing\"},\"traceId\":\"t\",\"spanId\":\"s\"}");
        sameAsJackson("{}");
        sameAsJackson("{\"msg\":12,\"level\":30}");
    }

    @Test
    void unusualOrInvalidLinesAreLeftToJackson() {
        StructuredLine out = new StructuredLine();
        for (String line : new String[] {"{\"tags\":[1,2]}", "{\"msg\":\"\\u00e9\"}", "{\"level\":\"\\ninfo\"}",
                "{\"a\":01}", "{\"a\":1,}", "{\"a\":tru}", "{\"a\":\"x\"} trailing", "[1]", "plain text",
                "{\"a\":\"\u0001\"}", "{\"k\\\"\":1}", "{\"a\":1", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\" 1}"}) {
            assertThat(fast(line, out)).as(line).isFalse();
        }
        byte[] invalidUtf8 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'};
        assertThat(fast.read(invalidUtf8, 0, invalidUtf8.length, out)).isFalse();
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> text = Arbitraries.strings().withCharRange(' ', '~').withChars('\u00e9', '\u4e2d')
                .ofMaxLength(12);
        Arbitrary<String> keys = Arbitraries.of("msg", "message", "level", "lvl", "ts", "time", "trace_id", "a", "b",
                "log", "stream", "service", "x.y");
        Arbitrary<String> values = Arbitraries.oneOf(text.map(s -> {
            try {
                return JSON.writeValueAsString(s);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }), Arbitraries.longs().map(String::valueOf), Arbitraries.of("true", "false", "null", "1.25", "-3e2",
                "\"2026-12-01T08:00:00Z\"", "{\"n\":1}", "{\"name\":\"svc\"}"));
        return Arbitraries.maps(keys, values).ofMaxSize(8).map(m -> {
            StringBuilder b = new StringBuilder("{");
            m.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
            return b.append('}').toString();
        });
    }

    @Property(tries = 1000)
    void whatTheFastPathTakesItReadsLikeJackson(@ForAll("lines") String line) throws Exception {
        StructuredLine a = new StructuredLine();
        if (fast(line, a)) {
            sameAsJackson(line);
        }
    }
}
