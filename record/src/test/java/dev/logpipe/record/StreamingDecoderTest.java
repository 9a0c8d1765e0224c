package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class StreamingDecoderTest {
    private final RecordCodec codec = new RecordCodec();

    @Test
    void aCollectorShapedLineTakesTheStreamingPath() throws Exception {
        String line = "{\"schema_version\":3,\"record_id\":\"00ab\",\"event_time\":\"2026-12-01T08:00:00.123Z\","
                + "\"observed_time\":\"2026-12-01T08:00:00.200Z\",\"tenant_id\":\"acme\",\"service\":\"web\","
                + "\"instance_id\":\"web-1\",\"level\":\"warning\",\"message\":\"GET /x 500 order_id=CO-1\","
                + "\"fields\":{\"status\":500,\"took\":1.5,\"ok\":false,\"http\":{\"method\":\"GET\"}}}";
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        LogRecord.Builder fast = StreamingDecoder.decode(new JsonFactory(), b, 0, b.length);
        assertThat(fast).isNotNull();
        assertThat(fast.build()).isEqualTo(codec.decodeTree(b, 0, b.length).build());
        assertThat(List.copyOf(fast.build().fields().keySet())).containsExactly("status", "took", "ok", "http.method");
    }

    @Test
    void surprisesAreHandedToTheTreeDecoder() {
        for (String line : List.of(
                "{\"message\":\"m\",\"message\":\"n\"}",
                "{\"message\":\"m\",\"fields\":{\"a\":1,\"a\":null}}",
                "{\"message\":\"m\",\"fields\":{\"a\":{\"b\":1},\"a\":2}}",
                "{\"message\":\"m\",\"fields\":{\"arr\":[1,2]}}",
                "{\"message\":\"m\",\"fields\":{\"big\":123456789012345678901234567890}}",
                "{\"message\":\"m\",\"event_time\":\"2026-12-01T09:00:00+01:00\"}",
                "{\"message\":\"m\",\"tenant_id\":7}",
                "{\"message\":\"m\"} x",
                "{\"message\":\"m\"",
                "{\"record_id\":\"x\"}")) {
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            assertThat(StreamingDecoder.decode(new JsonFactory(), b, 0, b.length))
                    .as(line)
                    .isNull();
        }
    }

    /** Whatever the line, the codec (streaming first) answers exactly what the tree decoder alone answers. */
    @Property(tries = 3000)
    void theCodecDecodesEveryLineAsTheTreeDecoderDoes(@ForAll("lines") String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        Object tree = outcome(() -> codec.decodeTree(b, 0, b.length).build());
        Object both = outcome(() -> codec.decode(b, 0, b.length));
        assertThat(both).isEqualTo(tree);
    }

    @Test
    void errorsStillNameTheField() {
        assertThatThrownBy(() -> codec.decode("{\"message\":\"m\",\"event_time\":\"soon\"}".getBytes()))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("event_time");
    }

    private interface Decode {
        LogRecord run() throws RecordFormatException;
    }

    /** The record with its fields in order, or the error's class and message. */
    private static Object outcome(Decode d) {
        try {
            LogRecord r = d.run();
            return List.of(r, new ArrayList<>(r.fields().entrySet()));
        } catch (RecordFormatException | RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> keys = Arbitraries.of(
                "message",
                "schema_version",
                "record_id",
                "event_time",
                "observed_time",
                "tenant_id",
                "trace_id",
                "level",
                "service",
                "region",
                "fields",
                "fields",
                "other");
        Arbitrary<String> values = Arbitraries.of(
                "\"m\"",
                "\"caf\\u00e9 \\\"q\\\"\"",
                "\"2026-12-01T08:00:00.123Z\"",
                "\"2026-12-01 08:00:00z\"",
                "\"2026-12-01T09:00:00.5+01:00\"",
                "\"2026-02-30T00:00:00Z\"",
                "\"ERR\"",
                "null",
                "3",
                "0",
                "-1",
                "2.5",
                "1e400",
                "12345678901234567890",
                "true",
                "[1,{\"a\":2}]",
                "{}",
                "{\"a\":1,\"b\":{\"c\":\"x\"},\"a\":null}",
                "{\"a\":{\"b\":1},\"a\":2}",
                "{\"a.b\":1,\"a\":{\"b\":2}}",
                "{\"\":{\"x\":1},\"x\":2}",
                "{\"s\":\"v\",\"n\":-7,\"l\":9007199254740993,\"d\":0.1,\"t\":false,\"z\":null,\"arr\":[1]}",
                "{\"deep\":{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":{\"j\":{\"k\":{\"l\":{\"m\":{\"n\":"
                        + "{\"o\":{\"p\":{\"q\":1}}}}}}}}}}}}}}}}}}");
        Arbitrary<String> entry = Combinators.combine(keys, values).as((k, v) -> "\"" + k + "\":" + v);
        Arbitrary<String> tail = Arbitraries.of("", "", "", " ", "\n", "x", "{}", "}");
        return Combinators.combine(
                        entry.list().ofMaxSize(8),
                        Arbitraries.of(true, true, false),
                        tail,
                        Arbitraries.integers().between(0, 4))
                .as((entries, withMessage, after, cut) -> {
                    List<String> all = new ArrayList<>(entries);
                    if (withMessage) {
                        all.add(cut % 2 == 0 ? 0 : all.size(), "\"message\":\"hello\"");
                    }
                    String s = all.stream().collect(Collectors.joining(",", "{", "}")) + after;
                    return cut == 4 && s.length() > 3 ? s.substring(0, s.length() - 2) : s;
                });
    }
}
