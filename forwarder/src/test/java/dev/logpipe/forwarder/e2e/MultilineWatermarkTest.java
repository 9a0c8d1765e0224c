package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.testkit.LogFile;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * E2E-2: with {@code parser.type: multiline} the watermark moves per committed record, to the end of the
 * record's last physical line; a trailing record commits by idle flush, or (with
 * {@code parser.flush_interval: 0}) only when the next header arrives or the forwarder stops gracefully.
 */
class MultilineWatermarkTest extends WorkspaceTest {
    private static final String[] RECORD_1 = {
        "2024-05-01 10:00:00 ERROR payment failed",
        "java.lang.IllegalStateException: card declined",
        "    at dev.shop.Pay.charge(Pay.java:42)"
    };
    private static final String[] RECORD_2 = {
        "2024-05-01 10:00:01 WARN retrying", "    at dev.shop.Retry.run(Retry.java:7)"
    };
    private static final String SENTINEL = "2024-05-01 10:00:02 INFO sentinel";

    @BeforeEach
    void configure() {
        ws.config().set("parser.type", "multiline").set("parser.multiline.header_pattern", "^\\d{4}-");
    }

    @Test
    void trailingRecordIsCommittedByIdleFlushWhileTheForwarderRuns() {
        ws.config().set("parser.flush_interval", "100ms");
        LogFile app = ws.logFile("app.log").lines(RECORD_1).lines(RECORD_2);
        ForwarderProcess p = ws.startAndAwait();

        List<SinkRecord> records = ws.delivered().awaitAtLeast(2);
        await("watermark at the end of the trailing record's last line")
                .atMost(Delivered.TIMEOUT)
                .until(() -> WatermarkFile.offset(ws.watermarks(), app.path()) == app.size());
        assertThat(p.isAlive()).as("committed by idle flush, not by a shutdown").isTrue();
        assertThat(records)
                .extracting(SinkRecord::message)
                .containsExactly(String.join("\n", RECORD_1), String.join("\n", RECORD_2));
        assertThat(records)
                .extracting(SinkRecord::offset)
                .containsExactly(0L, app.written().get(3).startOffset());
        p.stop();
        assertThat(ws.delivered().records()).hasSize(2);
    }

    @Test
    void withoutIdleFlushTrailingRecordWaitsForTheNextHeaderLine() {
        ws.config().set("parser.flush_interval", "0");
        LogFile app = ws.logFile("app.log").lines(RECORD_1).lines(RECORD_2);
        long endOfRecord1 = app.written().get(2).endOffset();
        long endOfRecord2 = app.written().get(4).endOffset();
        ForwarderProcess p = ws.startAndAwait();

        // All five lines are read, but only record 1 is complete (record 2's header ended it).
        await("5 lines read and record 1 committed")
                .atMost(Delivered.TIMEOUT)
                .until(() -> p.counter("log_forwarder_lines_read_total") == 5
                        && WatermarkFile.offset(ws.watermarks(), app.path()) == endOfRecord1);
        await("record 2 held back")
                .during(Duration.ofMillis(400))
                .atMost(Duration.ofSeconds(2))
                .until(() -> ws.delivered().records().size() == 1
                        && WatermarkFile.offset(ws.watermarks(), app.path()) == endOfRecord1);
        assertThat(ws.delivered().messages()).containsExactly(String.join("\n", RECORD_1));

        app.lines(SENTINEL);
        ws.delivered().awaitAtLeast(2);
        await("watermark at the end of record 2's last line, before the sentinel")
                .atMost(Delivered.TIMEOUT)
                .until(() -> WatermarkFile.offset(ws.watermarks(), app.path()) == endOfRecord2);
        assertThat(ws.delivered().messages()).containsExactly(String.join("\n", RECORD_1), String.join("\n", RECORD_2));

        p.stop(); // a graceful stop publishes the held-back sentinel record
        assertThat(ws.delivered().messages())
                .containsExactly(String.join("\n", RECORD_1), String.join("\n", RECORD_2), SENTINEL);
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }
}
