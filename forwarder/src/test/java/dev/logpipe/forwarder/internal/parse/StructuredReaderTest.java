package dev.logpipe.forwarder.internal.parse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON and logfmt lines read into schema fields and encoded fields. */
class StructuredReaderTest {
    private static final TimeParser RFC3339 =
            TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());
    private final StructuredLine out = new StructuredLine();

    private static String text(JsonBuffer b) {
        return new String(b.array(), 0, b.size(), StandardCharsets.UTF_8);
    }

    private boolean json(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return new JsonLineReader(KeyMapping.DEFAULT, null, RFC3339).read(b, 0, b.length, Map.of(), out);
    }

    private boolean logfmt(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return new LogfmtLineReader(KeyMapping.DEFAULT, null, RFC3339).read(b, 0, b.length, Map.of(), out);
    }

    @Test
    void wellKnownJsonKeysFeedTheSchemaAndTheRestBecomesFlattenedFields() {
        assertThat(
                        json(
                                "{\"ts\":\"2026-12-01T08:00:00.5Z\",\"lvl\":\"warning\",\"msg\":\"disk \\u00e9 \\ud83d\\ude00 low\","
                                        + "\"traceId\":\"abc\",\"span_id\":\"def\",\"service\":{\"name\":\"billing\"},"
                                        + "\"http\":{\"status\":503,\"took\":1.5,\"ok\":false,\"tags\":[1, \"a\"]},\"gone\":null}"))
                .isTrue();
        assertThat(text(out.messageJson())).isEqualTo("\"disk \u00e9 \ud83d\ude00 low\"");
        assertThat(out.level()).isEqualTo("warning");
        assertThat(out.traceId()).isEqualTo("abc");
        assertThat(out.spanId()).isEqualTo("def");
        assertThat(out.service()).isEqualTo("billing");
        assertThat(out.time()).isEqualTo(1796112000_500_000_000L);
        assertThat(text(out.fieldsJson()))
                .isEqualTo(",\"http.status\":503,\"http.took\":1.5,\"http.ok\":false,\"http.tags\":\"[1,\\\"a\\\"]\"");
    }

    @Test
    void regionAndCloudRegionFeedTheSchemaRegionInJsonAndLogfmt() {
        assertThat(json("{\"msg\":\"m\",\"cloud\":{\"region\":\"us-east-1\",\"zone\":\"a\"},\"region\":\"eu-west-1\"}"))
                .isTrue();
        assertThat(out.region()).isEqualTo("us-east-1");
        assertThat(text(out.fieldsJson())).isEqualTo(",\"cloud.zone\":\"a\",\"region\":\"eu-west-1\"");
        assertThat(logfmt("msg=m region=eu-west-1")).isTrue();
        assertThat(out.region()).isEqualTo("eu-west-1");
        assertThat(text(out.fieldsJson())).isEmpty();
        assertThat(json("{\"msg\":\"m\"}")).isTrue();
        assertThat(out.region()).isNull();
    }

    @Test
    void theFirstKeyForASchemaFieldWinsAndLaterOnesStayFields() {
        assertThat(json("{\"msg\":\"first\",\"message\":\"second\",\"level\":\"info\",\"severity\":\"high\"}"))
                .isTrue();
        assertThat(text(out.messageJson())).isEqualTo("\"first\"");
        assertThat(text(out.fieldsJson())).isEqualTo(",\"message\":\"second\",\"severity\":\"high\"");
    }

    @Test
    void aTimeThatDoesNotParseStaysAFieldAndIsReported() {
        assertThat(json("{\"time\":\"yesterday\",\"msg\":\"m\"}")).isTrue();
        assertThat(out.time()).isEqualTo(TimeParser.NONE);
        assertThat(out.badTime()).isEqualTo("yesterday");
        assertThat(text(out.fieldsJson())).isEqualTo(",\"time\":\"yesterday\"");
    }

    @Test
    void reservedRepeatedAndTransformNamesFromTheLineAreDropped() {
        byte[] b = "{\"log\":{\"offset\":1},\"a\":1,\"a\":2,\"env\":\"x\",\"stream\":\"s\",\"msg\":\"m\"}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(new JsonLineReader(KeyMapping.DEFAULT, null, RFC3339)
                        .read(b, 0, b.length, Map.of("env", "prod"), out))
                .isTrue();
        assertThat(text(out.fieldsJson())).isEqualTo(",\"a\":1");
    }

    @Test
    void invalidJsonIsAnErrorWithAReason() {
        assertThat(json("{\"msg\":\"unterminated}")).isFalse();
        assertThat(out.error()).startsWith("invalid JSON");
        assertThat(json("[1,2]")).isFalse();
        assertThat(out.error()).isEqualTo("not a JSON object");
        assertThat(json("{\"a\":1} trailing")).isFalse();
        assertThat(out.error()).isNotNull();
        assertThat(json("plain text line")).isFalse();
        assertThat(json("{" + "\"a\":{".repeat(20) + "}".repeat(21))).isFalse();
        assertThat(out.error()).contains("nested");
        assertThat(out.hasMessage()).isFalse();
    }

    @Test
    void moreThanAThousandKeysIsAnError() {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < 1001; i++) {
            b.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":1");
        }
        assertThat(json(b.append('}').toString())).isFalse();
        assertThat(out.error()).contains("1000");
    }

    @Test
    void aConfiguredMappingReplacesTheDefaults() {
        KeyMapping keys = new KeyMapping(
                List.of("text"),
                List.of("log.level"),
                List.of("when"),
                List.of(),
                List.of(),
                List.of("app"),
                List.of("zone"));
        byte[] b =
                "{\"text\":\"hi\",\"log\":{\"level\":\"ERROR\"},\"when\":\"2026-12-01T08:00:00Z\",\"msg\":\"x\",\"app\":\"a\",\"zone\":\"z1\",\"region\":\"r\"}"
                        .getBytes(StandardCharsets.UTF_8);
        assertThat(new JsonLineReader(keys, null, RFC3339).read(b, 0, b.length, Map.of(), out))
                .isTrue();
        assertThat(text(out.messageJson())).isEqualTo("\"hi\"");
        assertThat(out.level()).isEqualTo("ERROR");
        assertThat(out.service()).isEqualTo("a");
        assertThat(out.region()).isEqualTo("z1");
        assertThat(out.time()).isEqualTo(1796112000_000_000_000L);
        assertThat(text(out.fieldsJson())).isEqualTo(",\"msg\":\"x\",\"region\":\"r\"");
    }

    @Test
    void logfmtWithQuotesEscapesAndBareKeys() {
        assertThat(logfmt("ts=2026-12-01T08:00:00Z level=info msg=\"user \\\"bob\\\" logged\\nin\" path=/a=b "
                        + "empty= dry_run caf\u00e9=cr\u00e8me"))
                .isTrue();
        assertThat(text(out.messageJson())).isEqualTo("\"user \\\"bob\\\" logged\\nin\"");
        assertThat(out.level()).isEqualTo("info");
        assertThat(out.time()).isEqualTo(1796112000_000_000_000L);
        assertThat(text(out.fieldsJson()))
                .isEqualTo(",\"path\":\"/a=b\",\"empty\":\"\",\"dry_run\":true," + "\"caf\u00e9\":\"cr\u00e8me\"");
    }

    @Test
    void invalidLogfmtIsAnErrorWithAReason() {
        assertThat(logfmt("just some words")).isFalse();
        assertThat(out.error()).contains("no key=value");
        assertThat(logfmt("a=\"open")).isFalse();
        assertThat(out.error()).contains("unterminated");
        assertThat(logfmt("a=\"x\"y b=1")).isFalse();
        assertThat(logfmt("=1")).isFalse();
        assertThat(logfmt("a\"b=1")).isFalse();
    }

    @Test
    void continuationLinesAreAppendedToTheMessage() {
        assertThat(json("{\"msg\":\"boom\"}")).isTrue();
        byte[] rest = "at x\n\tat \"y\"".getBytes(StandardCharsets.UTF_8);
        out.appendToMessage(rest, 0, rest.length, new JsonBuffer(64));
        assertThat(text(out.messageJson())).isEqualTo("\"boom\\nat x\\n\\tat \\\"y\\\"\"");
    }
}
