package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.testkit.LogFile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** E2E-3: with {@code parser.type: line} every physical line commits, and the watermark follows each line end. */
class LineWatermarkTest extends WorkspaceTest {

    @BeforeEach
    void configure() {
        ws.config().set("parser.type", "line").set("watch.state.flush_interval", "0");
    }

    @Test
    void watermarkFollowsTheEndOfEachLine() {
        LogFile app = ws.logFile("app.log");
        ForwarderProcess p = ws.startAndAwait();
        p.awaitLog("tailing file from beginning path=" + app.path());
        for (int i = 1; i <= 5; i++) {
            app.lines(Lines.numbered(i));
            long lineEnd = app.size();
            int expected = i;
            await("line " + i + " published and the watermark at its end (" + lineEnd + ")")
                    .atMost(Delivered.TIMEOUT)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> ws.delivered().records().size() == expected
                            && WatermarkFile.offset(ws.watermarks(), app.path()) == lineEnd);
        }

        long endOfLine5 = app.size();
        app.raw("line-006 without its newline yet");
        await("the partial line is read")
                .atMost(Delivered.TIMEOUT)
                .until(() -> p.counter("log_forwarder_bytes_read_total") == app.size());
        await("the watermark stays at the last line boundary")
                .during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> WatermarkFile.offset(ws.watermarks(), app.path()) == endOfLine5
                        && ws.delivered().records().size() == 5);

        app.raw("\n");
        await("line 6 published and the watermark at its end")
                .atMost(Delivered.TIMEOUT)
                .until(() -> ws.delivered().records().size() == 6
                        && WatermarkFile.offset(ws.watermarks(), app.path()) == app.size());
        p.stop();
        List<String> expected = new ArrayList<>(List.of(Lines.numbered(1, 5)));
        expected.add("line-006 without its newline yet");
        assertThat(ws.delivered().messages()).containsExactlyElementsOf(expected);
    }
}
