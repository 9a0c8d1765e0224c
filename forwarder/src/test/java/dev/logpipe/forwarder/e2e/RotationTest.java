package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.LogFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * E2E-4 and the other rotation styles: rename rotation while the forwarder runs and while it is stopped,
 * with the rotated name inside ({@code app.log*}) or outside ({@code *.log}) the watched patterns, and
 * copytruncate (docs/watermarks-and-restarts.md: supported, counted, restarts at 0). Every line must arrive exactly once.
 */
class RotationTest extends WorkspaceTest {

    /** E2E-4. */
    @ParameterizedTest(name = "pattern {0}")
    @ValueSource(strings = {"app.log*", "*.log"})
    void renameRotationWhileRunningDeliversEveryLineExactlyOnce(String pattern) {
        ws.config().source(ws.logs(), pattern).set("watch.rotate_wait", "200ms");
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 50));
        ForwarderProcess p = ws.startAndAwait();
        ws.delivered().awaitAtLeast(50);

        Path rotated = ws.log("app.log.1");
        app.renameTo(rotated);
        app.lines(Lines.numbered(51, 60)); // the application still writes through its old descriptor
        app.reopen(); // then reopens: a new app.log
        app.lines(Lines.numbered(61, 100));
        ws.delivered().awaitAtLeast(100);

        if (pattern.equals("app.log*")) {
            p.awaitLog("file renamed path=" + app.path() + " new_path=" + rotated);
        } else {
            p.awaitLog("file left the watched patterns path=" + app.path() + " new_path=" + rotated);
            p.awaitLog("stopped tailing file path=" + rotated); // read to its end, then closed after rotate_wait
        }
        assertThat(p.counter("log_forwarder_rotations_total")).isEqualTo(1);
        p.stop();

        assertExactlyOnce(app, 100);
        String fromBeginning = "tailing file from beginning path=" + app.path();
        assertThat(p.log().lines().filter(l -> l.endsWith(fromBeginning) || l.contains(fromBeginning + " (")))
                .as("tailed from the beginning twice: the original file and its successor")
                .hasSize(2);
    }

    @Test
    void copytruncateRestartsAtOffsetZeroAndDeliversTheLinesWrittenAfterIt() {
        ws.config().source(ws.logs(), "app.log"); // the copy (app.log.1) is not watched, as with logrotate's olddir
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 20));
        ForwarderProcess p = ws.startAndAwait();
        ws.delivered().awaitAtLeast(20);

        app.copyTruncate(ws.log("app.log.1"));
        app.lines(Lines.numbered(21, 25)); // fewer bytes than before: the file is now shorter than the offset read
        ws.delivered().awaitMessage(Lines.numbered(25));
        p.awaitLog("file shrank below its read offset (copytruncate rotation?) path=" + app.path());
        assertThat(p.counter("log_forwarder_truncations_total")).isEqualTo(1);
        p.stop();

        List<SinkRecord> records = ws.delivered().records();
        assertThat(records).extracting(SinkRecord::message).containsExactly(Lines.numbered(1, 25));
        assertThat(records.subList(20, 25))
                .extracting(SinkRecord::offset)
                .containsExactlyElementsOf(app.written().subList(20, 25).stream()
                        .map(LogFile.Line::startOffset)
                        .toList());
        assertThat(records.get(20).offset()).isZero();
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }

    @ParameterizedTest(name = "pattern {0}")
    @ValueSource(strings = {"app.log*", "*.log"})
    void rotationWhileStoppedFinishesTheOldFileFromItsWatermarkAndReadsTheNewOneFromZero(String pattern) {
        ws.config().source(ws.logs(), pattern);
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 10));
        ForwarderProcess first = ws.startAndAwait();
        ws.delivered().awaitAtLeast(10);
        first.stop();
        long watermark = app.size();
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(watermark);

        // While the forwarder is down: more lines, then logrotate renames the file, the application writes a
        // little more through its old descriptor, reopens, and writes into the new app.log.
        app.lines(Lines.numbered(11, 15));
        Path rotated = ws.log("app.log.1");
        app.renameTo(rotated);
        app.lines(Lines.numbered(16, 17));
        app.reopen();
        app.lines(Lines.numbered(18, 25));

        ForwarderProcess second = ws.startAndAwait();
        second.awaitLog("resuming file from watermark path=" + rotated + " offset=" + watermark);
        second.awaitLog("tailing file from beginning path=" + app.path());
        ws.delivered().awaitAtLeast(25);
        assertThat(second.counter("log_forwarder_lines_read_total")).isEqualTo(15);
        second.stop();

        assertExactlyOnce(app, 25);
        assertThat(ws.delivered().records().subList(10, 25))
                .extracting(SinkRecord::message)
                .as("the rest of the old file before the new file")
                .startsWith(Lines.numbered(11, 17));
    }

    @Test
    void fileDeletedWhileRunningIsStillReadToItsEndThroughTheOpenDescriptor() throws IOException {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 10));
        ForwarderProcess p = ws.startAndAwait();
        ws.delivered().awaitAtLeast(10);

        app.lines(Lines.numbered(11, 60));
        Files.delete(app.path()); // rotated away and removed at once, before the forwarder looked
        app.reopen();
        app.lines(Lines.numbered(61, 70));
        ws.delivered().awaitAtLeast(70);
        p.awaitLog("file deleted path=" + app.path());
        p.stop();

        assertThat(ws.delivered().messages()).containsExactlyInAnyOrder(Lines.numbered(1, 70));
        assertThat(ws.delivered().messages().subList(10, 60))
                .as("the deleted file is drained before its successor")
                .containsExactly(Lines.numbered(11, 60));
    }

    @Test
    void fileRotatedAndDeletedWhileStoppedIsCountedAsGapBytesNotSilentlyForgotten() throws IOException {
        String unread = "line-011 was still being written at the stop";
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 10)).raw(unread);
        ForwarderProcess first = ws.startAndAwait();
        ws.delivered().awaitAtLeast(10);
        first.stop(); // the watermark stops before the unterminated line; its size includes it

        Files.delete(app.path());
        app.reopen();
        app.lines(Lines.numbered(21, 23));
        ForwarderProcess second = ws.startAndAwait();
        second.awaitLog("was rotated away and deleted while the forwarder was stopped: at least " + unread.length()
                + " bytes after its watermark were never read");
        ws.delivered().awaitAtLeast(13);
        assertThat(second.counter("log_forwarder_gap_bytes_total")).isEqualTo(unread.length());
        second.stop();

        assertThat(ws.delivered().messages())
                .containsExactly(
                        Stream.concat(Arrays.stream(Lines.numbered(1, 10)), Arrays.stream(Lines.numbered(21, 23)))
                                .toArray(String[]::new));
    }

    /** Lines 1..n each delivered once, each with the offset it was written at in its file. */
    private void assertExactlyOnce(LogFile app, int n) {
        List<SinkRecord> records = ws.delivered().records();
        assertThat(records).extracting(SinkRecord::message).containsExactlyInAnyOrder(Lines.numbered(1, n));
        Map<String, Long> writtenAt =
                app.written().stream().collect(Collectors.toMap(LogFile.Line::text, LogFile.Line::startOffset));
        for (SinkRecord r : records) {
            assertThat(r.offset()).as("offset of %s", r.message()).isEqualTo(writtenAt.get(r.message()));
        }
        assertThat(records).extracting(SinkRecord::recordId).doesNotHaveDuplicates();
    }
}
