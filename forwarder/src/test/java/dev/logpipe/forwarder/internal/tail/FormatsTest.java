package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.forwarder.RunningLoop;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files in each format through the tail loop, read back with RecordCodec. */
class FormatsTest {
    @TempDir
    Path dir;

    private RunningLoop loop;
    private final NdjsonRecordingSink sink = new NdjsonRecordingSink();
    static final String ID = "4f1e9c0d2b7a6e5f".repeat(4);

    @AfterEach
    void stop() throws Exception {
        if (loop != null) {
            loop.close();
        }
    }

    private Path append(String file, String text) throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        Path p = dir.resolve("logs").resolve(file);
        Files.writeString(p, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return p;
    }

    private void start(String yaml) throws Exception {
        loop = RunningLoop.start(dir, RunningLoop.WATCH + yaml, sink);
    }

    private void awaitRecords(int n) {
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.records().size() >= n);
    }

    @Test
    void jsonLinesMapToTheSchemaAndAMalformedLineBetweenGoodOnesIsShippedAsText() throws Exception {
        Path f = append("app.log", """
                {"time":"2026-12-01T08:00:00.123+01:00","level":"warn","msg":"disk low","trace_id":"t1","service":"billing","disk":{"free_mb":12,"mount":"/var"},"note":"caf\\u00e9"}
                {"msg": "unterminated
                {"ts":1764576000.5,"msg":"epoch is not rfc3339"}
                """);
        start("parser:\n  format: json\n");
        awaitRecords(3);
        LogRecord good = sink.records().get(0);
        assertThat(good.message()).isEqualTo("disk low");
        assertThat(good.level()).isEqualTo(Level.WARN);
        assertThat(good.service()).isEqualTo("billing");
        assertThat(good.traceId()).isEqualTo("t1");
        assertThat(good.eventTime()).isEqualTo(Instant.parse("2026-12-01T07:00:00.123Z"));
        assertThat(good.fields())
                .containsEntry("disk.free_mb", 12L)
                .containsEntry("disk.mount", "/var")
                .containsEntry("note", "caf\u00e9")
                .containsEntry("log.offset", 0L);
        LogRecord bad = sink.records().get(1);
        assertThat(bad.message()).isEqualTo("{\"msg\": \"unterminated");
        assertThat((String) bad.fields().get("log.parse_error")).startsWith("invalid JSON");
        assertThat(bad.eventTime()).isNull();
        LogRecord epoch = sink.records().get(2);
        assertThat(epoch.eventTime()).isNull();
        assertThat(epoch.fields()).containsEntry("ts", 1.7645760005E9);
        assertThat(loop.metrics().parseFailures.count()).isEqualTo(1);
        assertThat(loop.metrics().timeParseFailures.count()).isEqualTo(1);
        await().until(() -> loop.watermark(f) == Files.size(f));
    }

    @Test
    void jsonFollowedByAStackTraceIsOneRecordWithTheFirstLinesTime() throws Exception {
        append("app.log", """
                {"ts":"2026-12-01T08:00:00Z","level":"error","msg":"boom"}
                java.lang.IllegalStateException: bad
                \tat a.B.c(B.java:1)
                {"ts":"2026-12-01T08:00:05Z","level":"info","msg":"next"}
                """);
        start("""
                parser:
                  format: json
                  type: multiline
                  multiline:
                    header_pattern: '^\\{'
                """);
        awaitRecords(2);
        LogRecord r = sink.records().get(0);
        assertThat(r.message()).isEqualTo("boom\njava.lang.IllegalStateException: bad\n\tat a.B.c(B.java:1)");
        assertThat(r.eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:00Z"));
        assertThat(r.level()).isEqualTo(Level.ERROR);
        assertThat(sink.records().get(1).eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:05Z"));
    }

    @Test
    void logfmtLinesWithAnEpochMillisLayout() throws Exception {
        append(
                "app.log",
                "ts=1764576000250 level=error msg=\"payment \\\"failed\\\"\" order=CO-1 span_id=s9\n"
                        + "no pairs here\n");
        start("parser:\n  format: logfmt\ntransform:\n  event_time:\n    layout: epoch_ms\n");
        awaitRecords(2);
        LogRecord r = sink.records().get(0);
        assertThat(r.message()).isEqualTo("payment \"failed\"");
        assertThat(r.eventTime()).isEqualTo(Instant.parse("2025-12-01T08:00:00.250Z"));
        assertThat(r.spanId()).isEqualTo("s9");
        assertThat(r.fields()).containsEntry("order", "CO-1");
        assertThat(sink.records().get(1).fields()).containsKey("log.parse_error");
    }

    @Test
    void plainTextTimeFromAnExtractGroupInAZone() throws Exception {
        append("app.log", "2026-07-01 10:00:00,500 INFO started\ngarbage INFO no time\n");
        start("""
                transform:
                  extract:
                    pattern: '^(?P<ts>\\S+ \\S+) (?P<level>\\w+)'
                  event_time:
                    field: ts
                    layout: log4j
                    zone: Europe/Berlin
                """);
        awaitRecords(2);
        assertThat(sink.records().get(0).eventTime()).isEqualTo(Instant.parse("2026-07-01T08:00:00.500Z"));
        assertThat(sink.records().get(1).eventTime()).isNull();
        assertThat(sink.records().get(1).message()).isEqualTo("garbage INFO no time");
        assertThat(loop.metrics().timeParseFailures.count()).isEqualTo(1);
    }

    @Test
    void criFilesReassemblePiecesBeforeParsingTheApplicationsJson() throws Exception {
        String name = "billing-5d8f7-abcde_payments_api-" + ID + ".log";
        String longValue = "v".repeat(5000);
        Path f = append(
                name,
                "2026-12-01T08:00:00.000000001Z stdout P {\"msg\":\"" + longValue.substring(0, 2500) + "\n"
                        + "2026-12-01T08:00:00.000000002Z stdout F " + longValue.substring(2500)
                        + "\",\"level\":\"info\"}\n"
                        + "2026-12-01T08:00:01Z stderr F not json\n");
        start("parser:\n  format: cri\n  content: json\n");
        awaitRecords(2);
        LogRecord r = sink.records().get(0);
        assertThat(r.message()).isEqualTo(longValue);
        assertThat(r.level()).isEqualTo(Level.INFO);
        assertThat(r.eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:00.000000001Z"));
        assertThat(r.service()).isEqualTo("api");
        assertThat(r.fields())
                .containsEntry("stream", "stdout")
                .containsEntry("k8s.pod.name", "billing-5d8f7-abcde")
                .containsEntry("k8s.namespace.name", "payments")
                .containsEntry("k8s.container.name", "api")
                .containsEntry("container.id", ID)
                .containsEntry("log.offset", 0L);
        LogRecord err = sink.records().get(1);
        assertThat(err.message()).isEqualTo("not json");
        assertThat(err.fields()).containsEntry("stream", "stderr").containsKey("log.parse_error");
        assertThat(err.eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:01Z"));
        await().until(() -> loop.watermark(f) == Files.size(f));
    }

    @Test
    void dockerFilesReassembleSixteenKibPieces() throws Exception {
        String piece = "y".repeat(16 * 1024);
        append(
                "c.log",
                "{\"log\":\"" + piece + "\",\"stream\":\"stdout\",\"time\":\"2026-12-01T08:00:00.1Z\"}\n"
                        + "{\"log\":\"end\\n\",\"stream\":\"stdout\",\"time\":\"2026-12-01T08:00:00.2Z\"}\n");
        start("parser:\n  format: docker\n");
        awaitRecords(1);
        LogRecord r = sink.records().get(0);
        assertThat(r.message()).isEqualTo(piece + "end");
        assertThat(r.eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:00.1Z"));
        assertThat(r.service()).as("not a Kubernetes file name").isNull();
    }

    @Test
    void theWatermarkNeverPointsInsideAHeldBackPiece() throws Exception {
        Path f = append("app.log", "2026-12-01T08:00:00Z stdout F whole\n");
        long afterFirst = Files.size(f);
        append("app.log", "2026-12-01T08:00:01Z stdout P half \n2026-12-01T08:00:01Z stderr F other stream\n");
        start("parser:\n  format: cri\n");
        awaitRecords(2);
        await().until(() -> loop.watermark(f) == afterFirst);
        loop.close(); // a graceful stop does not publish the held-back piece
        assertThat(loop.watermark(f)).isEqualTo(afterFirst);
        loop = null;
        append("app.log", "2026-12-01T08:00:02Z stdout F and the rest\n");
        start("parser:\n  format: cri\n");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sink.records().stream().anyMatch(r -> r.message().equals("half and the rest")));
        await().until(() -> loop.watermark(f) == Files.size(f));
        assertThat(sink.records())
                .extracting(LogRecord::message)
                .containsExactly("whole", "other stream", "other stream", "half and the rest");
        assertThat(sink.records().get(1).recordId())
                .isEqualTo(sink.records().get(2).recordId());
    }

    @Test
    void aCriLineSplitOverARotationIsShippedInTwoRecordsAndNothingIsLost() throws Exception {
        Path f = append("app.log", "2026-12-01T08:00:00Z stdout F before\n2026-12-01T08:00:01Z stdout P first half \n");
        start("  rotate_wait: 300ms\nparser:\n  format: cri\n");
        awaitRecords(1);
        Files.move(f, dir.resolve("logs/app.log.1"));
        Path fresh =
                append("app.log", "2026-12-01T08:00:02Z stdout F second half\n2026-12-01T08:00:03Z stdout F after\n");
        await().atMost(Duration.ofSeconds(15)).until(() -> sink.records().size() >= 4);
        assertThat(sink.records())
                .extracting(LogRecord::message)
                .containsExactly("before", "first half ", "second half", "after");
        assertThat(sink.records().get(1).fields()).containsEntry("log.partial", true);
        assertThat(sink.records().get(2).fields()).doesNotContainKey("log.partial");
        await().until(() -> loop.watermark(fresh) == Files.size(fresh));
    }

    @Test
    void parseThreadsKeepFileOrderAndWatermarksAcrossManyBatches() throws Exception {
        StringBuilder text = new StringBuilder();
        int n = 6000;
        for (int i = 0; i < n; i++) {
            text.append(
                    i % 97 == 0
                            ? "not json " + i + "\n"
                            : "{\"ts\":\"2026-12-01T08:00:00Z\",\"level\":\"info\",\"msg\":\"m" + i + "\",\"n\":" + i
                                    + "}\n");
        }
        Path f = append("app.log", text.toString());
        loop = RunningLoop.start(
                dir,
                RunningLoop.WATCH.replace("watch:\n", "watch:\n  parse_threads: 2\n  read_buffer: 4KiB\n")
                        + "parser:\n  format: json\n",
                sink);
        awaitRecords(n);
        await().until(() -> loop.watermark(f) == Files.size(f));
        long previous = -1;
        for (int i = 0; i < n; i++) {
            LogRecord r = sink.records().get(i);
            long offset = (Long) r.fields().get("log.offset");
            assertThat(offset).isGreaterThan(previous);
            previous = offset;
            assertThat(r.message()).isEqualTo(i % 97 == 0 ? "not json " + i : "m" + i);
        }
        assertThat(sink.records()).hasSize(n);
        assertThat(loop.metrics().parseFailures.count()).isEqualTo((n + 96) / 97);
    }
}
