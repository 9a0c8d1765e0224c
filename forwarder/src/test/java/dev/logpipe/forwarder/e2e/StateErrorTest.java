package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.LogFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Unusable state stops the forwarder with exit code 3 and the watermark path in the message (docs/watermarks-and-restarts.md,
 * "Corrupt watermark file"), unless the operator asked to archive a corrupt file.
 */
class StateErrorTest extends WorkspaceTest {
    @Override
    protected boolean metrics() {
        return false;
    }

    private static final int EXIT_STATE = 3;
    private static final String CORRUPT = "{\"files\": {\"/var/log/app.log\": {\"offset\": 12";

    @Test
    void corruptWatermarkFileMakesTheForwarderRefuseToStartWithExitCode3NamingTheFile() throws IOException {
        ws.logFile("app.log").lines(Lines.numbered(1, 3));
        WatermarkFile.write(ws.watermarks(), CORRUPT);

        ForwarderProcess p = ws.start();
        assertThat(p.awaitExit()).isEqualTo(EXIT_STATE);

        assertThat(p.log())
                .contains("log-forwarder: watermark file " + ws.watermarks() + " is corrupt")
                .contains("--reset-watermarks")
                .contains("watch.state.reset_on_corrupt");
        assertThat(Files.readString(ws.watermarks())).as("left as it was").isEqualTo(CORRUPT);
        assertThat(archives()).isEmpty();
        assertThat(ws.sinkFile()).as("nothing was published").doesNotExist();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--reset-watermarks", "watch.state.reset_on_corrupt: true"})
    void resetArchivesTheCorruptFileAndReadsEveryFileFromOffsetZero(String how) throws IOException {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 3));
        WatermarkFile.write(ws.watermarks(), CORRUPT);

        ForwarderProcess p;
        if (how.startsWith("--")) {
            p = ws.startAndAwait(how);
        } else {
            ws.config().set("watch.state.reset_on_corrupt", true);
            p = ws.startAndAwait();
        }
        ws.delivered().awaitAtLeast(3);
        p.stop();

        List<Path> archives = archives();
        assertThat(archives).hasSize(1);
        Path archive = archives.get(0);
        assertThat(archive.getFileName().toString())
                .as("{path}.corrupt.{UTC timestamp}")
                .matches("watermarks\\.json\\.corrupt\\.\\d{8}T\\d{6,9}Z");
        assertThat(Files.readString(archive)).isEqualTo(CORRUPT);
        assertThat(p.log())
                .contains("watermark file " + ws.watermarks() + " was corrupt")
                .contains("archived it as " + archive);
        assertThat(ws.delivered().messages()).containsExactly(Lines.numbered(1, 3));
        assertThat(WatermarkFile.offset(ws.watermarks(), app.path())).isEqualTo(app.size());
    }

    @Test
    void secondProcessOnTheSameWatermarkFileExitsWithCode3AndTheFirstKeepsRunning() {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 2));
        ForwarderProcess first = ws.startAndAwait();
        ws.delivered().awaitAtLeast(2);

        ForwarderProcess second = ws.start();
        assertThat(second.awaitExit()).isEqualTo(EXIT_STATE);
        assertThat(second.log())
                .contains("log-forwarder: watermark file " + ws.watermarks()
                        + " is in use by another log-forwarder process");

        app.lines(Lines.numbered(3));
        ws.delivered().awaitAtLeast(3);
        assertThat(first.isAlive()).isTrue();
        first.stop();
        assertThat(ws.delivered().messages()).containsExactly(Lines.numbered(1, 3));
    }

    private List<Path> archives() throws IOException {
        try (Stream<Path> s = Files.list(ws.watermarks().getParent())) {
            return s.filter(f -> f.getFileName().toString().startsWith("watermarks.json.corrupt."))
                    .toList();
        }
    }
}
