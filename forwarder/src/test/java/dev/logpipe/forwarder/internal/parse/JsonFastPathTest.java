package dev.logpipe.forwarder.internal.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.Level;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The one-pass JSON reader takes the common lines, leaves the rest, and reads what it takes like Jackson does. */
class JsonFastPathTest {
    private static final TimeParser RFC3339 =
            TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());
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
        sameAsJackson(line, fast);
        // Read again: now in the shape learned from the first read.
        sameAsJackson(line, fast);
    }

    private void sameAsJackson(String line, JsonFastPath reader) throws Exception {
        StructuredLine a = new StructuredLine();
        StructuredLine b = new StructuredLine();
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        a.reset();
        assertThat(reader.read(bytes, 0, bytes.length, a))
                .as("fast path takes %s", line)
                .isTrue();
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
        sameAsJackson(
                " { \"msg\" : \"tab\\tquote\\\" slash\\/ nl\\n\" , \"caf\u00e9\" : 1 } ".replace("caf\u00e9", "cafe"));
        sameAsJackson(
                "{\"message\":\"caf\u00e9 \ud83d\ude00\",\"msg\":\"second\",\"a\":1,\"a\":2,\"log\":{\"offset\":5}}");
        sameAsJackson("{\"ts\":\"not a time\",\"service\":{\"name\":\"billing\"},\"traceId\":\"t\",\"spanId\":\"s\"}");
        sameAsJackson("{}");
        sameAsJackson("{\"msg\":12,\"level\":30}");
    }

    @Test
    void unusualOrInvalidLinesAreLeftToJackson() {
        StructuredLine out = new StructuredLine();
        for (String line : new String[] {
            "{\"tags\":[1,2]}",
            "{\"msg\":\"\\u00e9\"}",
            "{\"level\":\"\\ninfo\"}",
            "{\"a\":01}",
            "{\"a\":1,}",
            "{\"a\":tru}",
            "{\"a\":\"x\"} trailing",
            "[1]",
            "plain text",
            "{\"a\":\"\u0001\"}",
            "{\"k\\\"\":1}",
            "{\"a\":1",
            "{\"a\":-}",
            "{\"a\":1.}",
            "{\"a\":1e}",
            "{\"a\" 1}"
        }) {
            assertThat(fast(line, out)).as(line).isFalse();
        }
        byte[] invalidUtf8 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'};
        assertThat(fast.read(invalidUtf8, 0, invalidUtf8.length, out)).isFalse();
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> text = Arbitraries.strings()
                .withCharRange(' ', '~')
                .withChars('\u00e9', '\u4e2d')
                .ofMaxLength(12);
        Arbitrary<String> keys = Arbitraries.of(
                "msg",
                "message",
                "level",
                "lvl",
                "ts",
                "time",
                "trace_id",
                "a",
                "b",
                "log",
                "stream",
                "service",
                "x.y");
        Arbitrary<String> values = Arbitraries.oneOf(
                text.map(s -> {
                    try {
                        return JSON.writeValueAsString(s);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }),
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.of(
                        "true",
                        "false",
                        "null",
                        "1.25",
                        "-3e2",
                        "\"2026-12-01T08:00:00Z\"",
                        "{\"n\":1}",
                        "{\"name\":\"svc\"}"));
        return Arbitraries.maps(keys, values).ofMaxSize(8).map(m -> {
            StringBuilder b = new StringBuilder("{");
            m.forEach((k, v) -> b.append(b.length() > 1 ? "," : "")
                    .append('"')
                    .append(k)
                    .append("\":")
                    .append(v));
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

    @Provide
    Arbitrary<String> linesWithRepeats() {
        Arbitrary<String> keys = Arbitraries.of("a", "b", "a.b", "msg", "message", "level", "http", "stream", "ts");
        Arbitrary<String> values = Arbitraries.of(
                "1",
                "\"x\"",
                "\"INFO\"",
                "true",
                "null",
                "{\"b\":2}",
                "{\"b\":{\"c\":\"d\"}}",
                "{\"status\":200,\"b\":\"y\"}",
                "\"2026-12-01T08:00:00Z\"",
                "{}");
        return Arbitraries.entries(keys, values).list().ofMaxSize(14).map(pairs -> {
            StringBuilder b = new StringBuilder("{");
            pairs.forEach(e -> b.append(b.length() > 1 ? "," : "")
                    .append('"')
                    .append(e.getKey())
                    .append("\":")
                    .append(e.getValue()));
            return b.append('}').toString();
        });
    }

    /** Repeated keys and flattened names that repeat ("a.b" beside {"a":{"b":..}}) keep the first value, as in Jackson. */
    @Property(tries = 1000)
    void repeatedNamesKeepTheirFirstValueLikeJackson(@ForAll("linesWithRepeats") String line) throws Exception {
        sameAsJackson(line);
    }

    @Test
    void manyKeysWithRepeatsAmongThemAreReadLikeJackson() throws Exception {
        StringBuilder b = new StringBuilder("{\"msg\":\"m\"");
        for (int k = 0; k < 900; k++) {
            b.append(",\"k").append(k).append("\":").append(k);
        }
        for (int k = 0; k < 900; k += 97) { // repeats, some of them sharing a hash slot with other names
            b.append(",\"k").append(k).append("\":\"again\"");
        }
        b.append(",\"n\":{\"k1\":1,\"k2\":{\"k3\":3}},\"n.k1\":\"again\",\"n.k2.k3\":\"again\"}");
        sameAsJackson(b.toString());
    }

    @Test
    void cachedNormalizedLevelsAreThoseOfLevelNormalize() {
        StructuredLine s = new StructuredLine();
        String[] texts = {
            "INFO",
            "info",
            "warning",
            "WARN",
            "Err",
            "error",
            "fatal",
            "debug",
            "trace",
            "bogus",
            " Info ",
            "notice",
            "critical",
            "",
            "DEBUG",
            "I"
        };
        Random r = new Random(7);
        for (int k = 0; k < 2000; k++) {
            String t = r.nextInt(4) == 0 ? "x" + r.nextInt(100) : texts[r.nextInt(texts.length)];
            s.level = new String(t); // a new String each time: the cache must compare text, not identity
            assertThat(s.normalizedLevel()).as(t).isEqualTo(Level.normalize(t));
        }
        s.level = null;
        assertThat(s.normalizedLevel()).isNull();
    }

    @Provide
    Arbitrary<List<String>> runsOfOneShape() {
        // One shape of keys; the values vary in ways that keep the shape, or break it.
        Arbitrary<String> time = Arbitraries.of(
                "\"2026-12-01T08:00:00Z\"",
                "\"not a time\"",
                "\"2026-12-01T08:00:00.5+01:00\"",
                "null",
                "1",
                "\"esc\\\"aped\"");
        Arbitrary<String> level = Arbitraries.of("\"INFO\"", "\"warning\"", "30", "null", "\"in\\tfo\"", "true");
        Arbitrary<String> text = Arbitraries.of(
                "\"x\"",
                "\"\"",
                "\"caf\u00e9\"",
                "\"a\\nb\"",
                "12",
                "-1.5e3",
                "false",
                "null",
                "{\"n\":1}",
                "\"\\u00e9\"",
                "[1]",
                "01");
        return Combinators.combine(time, level, text, text, Arbitraries.of(" ", "", "  "))
                .as((t, l, m, x, sp) -> "{\"time\":" + t + ",\"level\":" + l + ",\"msg\":" + m + "," + sp
                        + "\"http\":{\"status\":" + x + "},\"msg\":\"second\",\"stream\":\"s\",\"log\":" + x + "}")
                .list()
                .ofMinSize(2)
                .ofMaxSize(12);
    }

    /** Lines read one after the other by one reader (most in the shape of the line before) read like Jackson reads them. */
    @Property(tries = 500)
    void linesOfTheLearnedShapeReadLikeJackson(@ForAll("runsOfOneShape") List<String> lines) throws Exception {
        JsonFastPath reader = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339);
        for (String line : lines) {
            readsLikeAFreshReader(reader, line);
        }
    }

    private void readsLikeAFreshReader(JsonFastPath reader, String line) throws Exception {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        JsonFastPath fresh = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339);
        if (fresh.read(bytes, 0, bytes.length, new StructuredLine())) {
            sameAsJackson(line, reader);
        } else {
            assertThat(reader.read(bytes, 0, bytes.length, new StructuredLine()))
                    .as("left to Jackson by a reader that knows a shape, as by a fresh one: %s", line)
                    .isFalse();
        }
    }

    @Test
    void aLineThatDiffersFromTheLearnedShapeInAnyOneByteIsReadByItsOwnBytes() throws Exception {
        String learned = "{\"time\":\"2026-12-01T08:00:00Z\",\"abcdefghijklmno\":1,\"level\":\"INFO\",\"http\":"
                + "{\"status\":200,\"x\":null},\"msg\":\"m\",\"b\":true}";
        JsonFastPath reader = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339);
        for (int p = 0; p < learned.length(); p++) {
            for (char c : new char[] {'Z', ' ', ',', '"', '1', 'n', '}'}) {
                readsLikeAFreshReader(reader, learned);
                readsLikeAFreshReader(reader, learned.substring(0, p) + c + learned.substring(p + 1));
            }
        }
    }

    @Provide
    Arbitrary<List<String>> runsOfAdjacentFields() {
        // Top-level fields next to each other (copied in one piece once the shape is learned), broken up by
        // schema keys, nested objects, nulls, repeats and spaces.
        Arbitrary<String> value = Arbitraries.of(
                "\"x\"", "\"\"", "\"caf\u00e9\"", "\"a\\nb\\\"c\"", "12", "-1.5e3", "false", "null", "\"2026\"");
        Arbitrary<String> gap = Arbitraries.of("", "", "", " ");
        Arbitrary<String> key = Arbitraries.of("a", "b", "level", "msg", "http", "c.d", "time");
        Arbitrary<String> pair = Combinators.combine(key, value, gap)
                .as((k, v, sp) -> "," + sp + "\"" + k + "\":" + (k.equals("http") ? "{\"s\":" + v + "}" : v));
        Arbitrary<String> line = pair.list()
                .ofMinSize(1)
                .ofMaxSize(10)
                .map(ps -> "{\"time\":\"2026-12-01T08:00:00Z\"" + String.join("", ps) + "}");
        return line.list().ofMinSize(2).ofMaxSize(8).map(ls -> {
            List<String> out = new java.util.ArrayList<>();
            for (String l : ls) {
                out.add(l);
                out.add(l); // the same line again: read in the shape just learned
            }
            return out;
        });
    }

    /** A shape's fields are written byte for byte as a reader that reads the line key by key writes them. */
    @Property(tries = 500)
    void fieldsOfTheLearnedShapeAreTheBytesOfAFullRead(@ForAll("runsOfAdjacentFields") List<String> lines) {
        JsonFastPath reader = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339);
        for (String line : lines) {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            StructuredLine full = new StructuredLine();
            boolean taken = new JsonFastPath(new KeyRoles(KeyMapping.DEFAULT, null), RFC3339)
                    .read(bytes, 0, bytes.length, full);
            StructuredLine shaped = new StructuredLine();
            assertThat(reader.read(bytes, 0, bytes.length, shaped)).as(line).isEqualTo(taken);
            if (taken) {
                assertThat(text(shaped.fieldsJson())).as(line).isEqualTo(text(full.fieldsJson()));
                assertThat(text(shaped.messageJson())).as(line).isEqualTo(text(full.messageJson()));
                assertThat(shaped.time()).as(line).isEqualTo(full.time());
                assertThat(shaped.level()).as(line).isEqualTo(full.level());
            }
        }
    }

    @Test
    void idsAreWrittenAsTheJsonStringsOfTheirText() {
        for (String id : new String[] {"\"f12bbb4b46ee9d83\"", "\"caf\u00e9 x\"", "\"\"", "123", "-1.5", "true"}) {
            String line = "{\"msg\":\"m\",\"trace_id\":" + id + ",\"span_id\":" + id + "}";
            StructuredLine s = new StructuredLine();
            assertThat(fast(line, s)).as(line).isTrue();
            JsonBuffer trace = new JsonBuffer(64);
            s.writeTraceId(trace);
            JsonBuffer span = new JsonBuffer(64);
            s.writeSpanId(span);
            JsonBuffer expected = new JsonBuffer(64).string(s.traceId());
            assertThat(text(trace)).as(line).isEqualTo(text(expected));
            assertThat(text(span)).as(line).isEqualTo(text(expected));
        }
    }

    private static String text(JsonBuffer b) {
        return new String(b.array(), 0, b.size(), StandardCharsets.UTF_8);
    }
}
