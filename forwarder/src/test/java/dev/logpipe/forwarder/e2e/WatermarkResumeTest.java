package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.LogFile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * E2E-1 and the restart lifecycle of docs/watermarks-and-restarts.md: what a restarted forwarder reads, decided by the watermark
 * file alone. Each test runs the real forwarder as a child JVM and stops it with SIGTERM.
 */
class WatermarkResumeTest extends WorkspaceTest {

    /** E2E-1. */
    @Test
    void resumesFromWatermarkAfterGracefulRestartWithoutDuplicates() {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 5));
        ForwarderProcess first = ws.startAndAwait();
        first.awaitLog("tailing file from beginning path=" + app.path());
        ws.delivered().awaitAtLeast(5);
        first.stop();
        long afterFirstRun = app.size();
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(afterFirstRun);

        app.lines(Lines.numbered(6, 10)); // written while the forwarder is stopped
        ForwarderProcess second = ws.startAndAwait();
        second.awaitLog("resuming file from watermark path=" + app.path() + " offset=" + afterFirstRun);
        ws.delivered().awaitAtLeast(10);
        app.lines(Lines.numbered(11, 12)); // and while it runs again
        ws.delivered().awaitAtLeast(12);
        assertThat(second.counter("log_forwarder_lines_read_total"))
                .as("the second run reads only the 7 lines after the watermark")
                .isEqualTo(7);
        assertThat(second.counter("log_forwarder_lines_replayed_total")).isZero();
        second.stop();

        assertThat(second.log()).doesNotContain("tailing file from beginning");
        List<SinkRecord> records = ws.delivered().records();
        assertThat(records).extracting(SinkRecord::message).containsExactly(Lines.numbered(1, 12));
        assertThat(records)
                .extracting(SinkRecord::offset)
                .containsExactlyElementsOf(
                        app.written().stream().map(LogFile.Line::startOffset).toList());
        assertThat(records).extracting(SinkRecord::recordId).doesNotHaveDuplicates();
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }

    @Test
    void partialLastLineIsHeldBackAcrossRestartAndDeliveredOnceWhenCompleted() {
        LogFile app = ws.logFile("app.log").lines("line-1", "line-2").raw("line-3 first half");
        long endOfLine2 = app.written().get(1).endOffset();
        ForwarderProcess first = ws.startAndAwait();
        ws.delivered().awaitAtLeast(2);
        first.stop();
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path()))
                .as("the watermark never points inside a line")
                .isEqualTo(endOfLine2);
        assertThat(ws.delivered().messages()).containsExactly("line-1", "line-2");

        ForwarderProcess second = ws.startAndAwait();
        second.awaitLog("resuming file from watermark path=" + app.path() + " offset=" + endOfLine2);
        app.raw(", second half\n").lines("line-4");
        ws.delivered().awaitMessage("line-4");
        second.stop();

        assertThat(ws.delivered().messages())
                .containsExactly("line-1", "line-2", "line-3 first half, second half", "line-4");
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }

    @Test
    void aWatermarkFileInTheDocumentedFormatLoadsAndResumesFromItsOffset() {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 6));
        long endOfLine3 = app.written().get(2).endOffset();
        WatermarkFile.write(
                ws.watermarks(),
                "{\n  \"files\": {\n    \"" + app.path() + "\": {\n      \"offset\": " + endOfLine3
                        + ",\n      \"inode\": " + app.inode() + "\n    }\n  }\n}\n");

        ForwarderProcess p = ws.startAndAwait();
        p.awaitLog("resuming file from watermark path=" + app.path() + " offset=" + endOfLine3);
        ws.delivered().awaitAtLeast(3);
        assertThat(p.counter("log_forwarder_lines_read_total")).isEqualTo(3);
        p.stop();

        assertThat(ws.delivered().messages()).containsExactly(Lines.numbered(4, 6));
        Map<String, WatermarkFile.Entry> after = WatermarkFile.read(ws.watermarks());
        assertThat(after).containsEntry(app.path().toString(), new WatermarkFile.Entry(app.size(), app.inode()));
    }

    @Test
    void fileWhoseInodeMatchesButFingerprintDiffersIsReadFromTheBeginning() {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 4));
        long endOfLine2 = app.written().get(1).endOffset();
        long firstLineBytes = app.written().get(0).endOffset();
        // An entry a previous file with the same device and inode left behind: same identity to the OS,
        // different first bytes. Trusting it would skip lines 1 and 2 of this new file.
        WatermarkFile.write(
                ws.watermarks(),
                "{\"files\":{\"" + app.path() + "\":{\"offset\":" + endOfLine2
                        + ",\"inode\":" + app.inode() + ",\"device\":" + LogFile.device(app.path())
                        + ",\"fingerprint\":\"0123456789abcdef\",\"fingerprint_bytes\":" + firstLineBytes + "}}}");

        ForwarderProcess p = ws.startAndAwait();
        p.awaitLog("tailing file from beginning path=" + app.path());
        ws.delivered().awaitAtLeast(4);
        p.stop();

        assertThat(p.log()).doesNotContain("resuming file from watermark");
        assertThat(ws.delivered().messages()).containsExactly(Lines.numbered(1, 4));
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }
}
