package dev.logpipe.index.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardMetadataTest {
    @TempDir
    Path dir;

    private final ShardMetadata empty =
            ShardMetadata.empty(new ShardId(ShardKind.RECORDS, "acme", LocalDate.parse("2026-12-02")));

    @Test
    void aWrittenFileReadsBackAsTheSameMetadata() throws Exception {
        Path file = dir.resolve("shard.json");
        empty.write(file);
        assertThat(ShardMetadata.read(file)).contains(empty);
    }

    @Test
    void aFileOfANewerFormatIsReportedAsWrittenByANewerVersionNotAsCorrupt() throws Exception {
        Path file = dir.resolve("shard.json");
        String json = new String(empty.toJson(), StandardCharsets.UTF_8)
                .replace("\"format\" : " + ShardMetadata.FORMAT, "\"format\" : " + (ShardMetadata.FORMAT + 1));
        Files.writeString(file, json);
        assertThatThrownBy(() -> ShardMetadata.read(file))
                .isInstanceOf(ShardMetadata.NewerFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("newer logpipe")
                .hasMessageNotContaining("corrupt");
    }

    @Test
    void aDamagedFileIsReportedAsCorruptNamingTheFile() throws Exception {
        Path file = dir.resolve("shard.json");
        Files.writeString(file, "{\"format\": 1, \"kind\": \"NO_SUCH_KIND\"");
        assertThatThrownBy(() -> ShardMetadata.read(file))
                .isNotInstanceOf(ShardMetadata.NewerFormatException.class)
                .hasMessageContaining("shard metadata " + file + " is corrupt");
    }
}
