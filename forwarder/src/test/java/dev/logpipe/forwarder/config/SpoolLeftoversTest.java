package dev.logpipe.forwarder.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpoolLeftoversTest {
    @TempDir
    Path dir;

    @Test
    void aSpoolTurnedOffWithSegmentsLeftIsNamedWithTheCountAndBytes() throws Exception {
        Path spool = dir.resolve("spool");
        Files.createDirectories(spool);
        assertThat(SpoolLeftovers.describe(spool)).isNull();
        Files.write(spool.resolve("00000000000000000001.seg"), new byte[100]);
        Files.write(spool.resolve("00000000000000000002.seg"), new byte[0]);
        Files.writeString(spool.resolve("cursor"), "x");
        assertThat(SpoolLeftovers.describe(spool))
                .contains(spool.toString(), "1 segment file(s), 100 bytes", "sink.spool.enabled: true");
        assertThat(SpoolLeftovers.describe(dir.resolve("missing"))).isNull();
    }
}
