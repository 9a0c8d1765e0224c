package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small fixtures: log files that rotate, NDJSON outputs read as they grow, Prometheus scrapes, free ports. */
class TestFixturesTest {
    @TempDir
    Path dir;

    @Test
    void aLogFileRecordsEachLinesOffsetsAcrossARename() {
        Path app = dir.resolve("app.log");
        try (LogFile log = LogFile.append(app)) {
            log.lines("one", "twö");
            long inode = log.inode();
            log.renameTo(dir.resolve("app.log.1")).lines("late").reopen().lines("new");
            assertThat(log.written()).extracting(LogFile.Line::startOffset).containsExactly(0L, 4L, 9L, 0L);
            assertThat(log.written().get(1).endOffset()).isEqualTo(9); // ö is two bytes
            assertThat(log.written().get(2).file()).isEqualTo(dir.resolve("app.log.1"));
            assertThat(LogFile.inode(dir.resolve("app.log.1"))).isEqualTo(inode);
            assertThat(log.inode()).isNotEqualTo(inode);
        }
    }

    @Test
    void anNdjsonTailReadsOnlyCompleteLinesAndRefusesTornOnes() throws IOException {
        Path out = dir.resolve("out.ndjson");
        NdjsonTail tail = new NdjsonTail(out);
        assertThat(tail.poll()).isEmpty(); // no file yet
        Files.writeString(out, "{\"a\":1}\n{\"a\":");
        assertThat(tail.poll()).hasSize(1);
        assertThat(tail.pendingBytes()).isEqualTo(5);
        Files.writeString(out, "{\"a\":1}\n{\"a\":2}\n");
        assertThat(tail.count()).isEqualTo(2);
        assertThat(tail.position()).isEqualTo(Files.size(out));
        Files.writeString(out, "{\"a\":1}\n{\"a\":2}\nnot json\n");
        assertThatThrownBy(tail::poll).isInstanceOf(AssertionError.class).hasMessageContaining("at byte 16");
        Files.writeString(out, "{}\n");
        assertThatThrownBy(tail::poll).hasMessageContaining("shrank");
        Files.writeString(out, "{\"a\":1}\n{\"b\"");
        assertThatThrownBy(() -> NdjsonTail.readAll(out)).hasMessageContaining("unterminated line");
    }

    @Test
    void aScrapeIsReadSeriesBySeriesWithLabels() {
        PrometheusScrape s = PrometheusScrape.parse("""
                # HELP x_total things
                # TYPE x_total counter
                x_total{route="/api v1",status="200"} 12.0
                up 1 1700000000000
                """);
        assertThat(s.counter("x_total{route=\"/api v1\",status=\"200\"}")).isEqualTo(12);
        assertThat(s.value("up")).isEqualTo(1.0);
        assertThatThrownBy(() -> s.value("missing")).hasMessageContaining("no series missing");
    }

    @Test
    void aFreePortCanBeBound() throws IOException {
        int port = FreePort.pick();
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }
}
