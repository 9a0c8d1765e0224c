package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.testkit.LogFile;
import dev.logpipe.testkit.NdjsonTail;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What happens to lines between reading and publishing: bounded record size, filters and transforms.
 * Lines that are cut, filtered or skipped are counted, and all of them advance the watermark.
 */
class RecordProcessingTest extends WorkspaceTest {

    @Test
    void oversizedLineIsTruncatedToMaxRecordBytesAndCounted() {
        ws.config().set("parser.max_record_bytes", "1KiB");
        String huge = "x".repeat(5000);
        LogFile app = ws.logFile("app.log").lines("short-1", huge, "short-2");
        ForwarderProcess p = ws.startAndAwait();

        List<SinkRecord> records = ws.delivered().awaitAtLeast(3);
        await("watermark past the long line")
                .atMost(Delivered.TIMEOUT)
                .until(() -> WatermarkFile.offset(ws.watermarks(), app.path()) == app.size());
        assertThat(p.counter("log_forwarder_lines_truncated_total")).isEqualTo(1);
        assertThat(p.counter("log_forwarder_lines_read_total")).isEqualTo(3);
        p.stop();

        assertThat(records).extracting(SinkRecord::message).containsExactly("short-1", "x".repeat(1024), "short-2");
        assertThat(records).extracting(SinkRecord::truncated).containsExactly(false, true, false);
        assertThat(records)
                .extracting(SinkRecord::offset)
                .containsExactlyElementsOf(
                        app.written().stream().map(LogFile.Line::startOffset).toList());
    }

    @Test
    void filteredLinesAreNotPublishedButAdvanceTheWatermark() {
        ws.config().set("filter.include", List.of("keep")).set("filter.exclude", List.of("secret"));
        LogFile app = ws.logFile("app.log").lines("keep 1", "drop 2", "keep secret 3", "keep 4", "drop 5");
        ForwarderProcess p = ws.startAndAwait();

        await("every line read and the watermark at the end, past the filtered last line")
                .atMost(Delivered.TIMEOUT)
                .until(() -> p.counter("log_forwarder_records_filtered_total") == 3
                        && WatermarkFile.offset(ws.watermarks(), app.path()) == app.size());
        assertThat(p.counter("log_forwarder_records_published_total")).isEqualTo(2);
        p.stop();

        assertThat(ws.delivered().messages()).containsExactly("keep 1", "keep 4");
    }

    @Test
    void linesSkippedByTheExtractTransformAdvanceTheWatermarkAndMatchesGetTheirFields() {
        ws.config()
                .set("transform.extract.pattern", "^(?P<level>[A-Za-z]+) (?P<user>u\\d+) ")
                .set("transform.extract.on_no_match", "skip")
                .set("transform.add_fields", Map.of("env", "test", "region", "eu-west-1", "trace_id", "t-1"));
        LogFile app = ws.logFile("app.log")
                .lines("warning u1 disk almost full", "no structure here", "ERROR u2 disk full", "trailing junk");
        ForwarderProcess p = ws.startAndAwait();

        await("both skipped lines counted and the watermark at the end")
                .atMost(Delivered.TIMEOUT)
                .until(() -> p.counter("log_forwarder_records_filtered_total") == 2
                        && WatermarkFile.offset(ws.watermarks(), app.path()) == app.size());
        p.stop();

        List<JsonNode> raw = NdjsonTail.readAll(ws.sinkFile());
        assertThat(raw)
                .extracting(n -> n.get("message").textValue())
                .containsExactly("warning u1 disk almost full", "ERROR u2 disk full");
        assertThat(raw).extracting(n -> n.get("level").textValue()).containsExactly("WARN", "ERROR");
        assertThat(raw).extracting(n -> n.get("fields").get("user").textValue()).containsExactly("u1", "u2");
        assertThat(raw).extracting(n -> n.get("fields").get("env").textValue()).containsExactly("test", "test");
        assertThat(raw).extracting(n -> n.get("region").textValue()).containsExactly("eu-west-1", "eu-west-1");
        assertThat(raw)
                .allSatisfy(n -> assertThat(n.get("fields").has("region")).isFalse());
    }
}
