package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.testkit.LogFile;
import dev.logpipe.testkit.NdjsonTail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A real forwarder process reading two sources with different parsers: the top-level one (JSON lines) and a
 * source's own ({@code watch.sources[1].parser}: CRI container files with logfmt inside), each file read as its
 * source says, both watermarks at their file's end.
 */
class SourceParsersTest extends WorkspaceTest {

    @Test
    void eachSourceIsReadWithItsOwnParserAndBothWatermarksReachTheEnd() throws Exception {
        Path containers = ws.root().resolve("containers");
        Files.createDirectories(containers);
        ws.config()
                .set("parser.format", "json")
                .set(
                        "watch.sources",
                        List.of(
                                Map.of("path", "logs", "patterns", List.of("*.log")),
                                Map.of(
                                        "path",
                                        "containers",
                                        "patterns",
                                        List.of("*.log"),
                                        "parser",
                                        Map.of("format", "cri", "content", "logfmt"))));
        LogFile app = ws.logFile("app.log")
                .lines(
                        "{\"time\":\"2026-12-01T08:00:00Z\",\"level\":\"warn\",\"msg\":\"disk low\",\"free_mb\":12}",
                        "level=info msg=\"not json here\"");
        String pod = "web-7d4b9c_shop_nginx-" + "0123456789abcdef".repeat(4) + ".log";
        LogFile cri = LogFile.append(containers.resolve(pod))
                .lines(
                        "2026-12-01T08:00:01.5Z stdout F level=error msg=\"upstream timed out\" status=504",
                        "2026-12-01T08:00:02Z stderr P level=info msg=\"split ",
                        "2026-12-01T08:00:02Z stderr F line\"");
        ForwarderProcess p = ws.startAndAwait();

        await("both files read to their end")
                .atMost(Delivered.TIMEOUT)
                .until(() -> WatermarkFile.offset(ws.watermarks(), app.path()) == app.size()
                        && WatermarkFile.offset(ws.watermarks(), cri.path()) == cri.size());
        assertThat(p.counter("log_forwarder_parse_failures_total")).isEqualTo(1);
        p.stop();

        List<JsonNode> records = NdjsonTail.readAll(ws.sinkFile());
        assertThat(records).hasSize(4);
        JsonNode json = byMessage(records, "disk low");
        assertThat(json.get("level").textValue()).isEqualTo("WARN");
        assertThat(Instant.parse(json.get("event_time").textValue())).isEqualTo(Instant.parse("2026-12-01T08:00:00Z"));
        assertThat(json.get("fields").get("free_mb").longValue()).isEqualTo(12);
        JsonNode notJson = byMessage(records, "level=info msg=\"not json here\"");
        assertThat(notJson.get("fields").get("log.parse_error").textValue()).startsWith("invalid JSON");

        JsonNode logfmt = byMessage(records, "upstream timed out");
        assertThat(logfmt.get("level").textValue()).isEqualTo("ERROR");
        assertThat(Instant.parse(logfmt.get("event_time").textValue()))
                .isEqualTo(Instant.parse("2026-12-01T08:00:01.5Z"));
        assertThat(logfmt.get("fields").get("status").textValue()).isEqualTo("504");
        assertThat(logfmt.get("fields").get("stream").textValue()).isEqualTo("stdout");
        assertThat(logfmt.get("fields").get("k8s.pod.name").textValue()).isEqualTo("web-7d4b9c");
        assertThat(logfmt.get("service").textValue()).isEqualTo("nginx");
        JsonNode joined = byMessage(records, "split line");
        assertThat(joined.get("fields").get("stream").textValue()).isEqualTo("stderr");
    }

    private static JsonNode byMessage(List<JsonNode> records, String message) {
        return records.stream()
                .filter(r -> r.get("message").textValue().equals(message))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no record with message " + message + " in " + records));
    }
}
