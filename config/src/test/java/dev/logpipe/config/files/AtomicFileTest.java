package dev.logpipe.config.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path dir;

    @Test
    void aWriteReplacesTheWholeContentAndLeavesNoTempFile() throws Exception {
        Path target = dir.resolve("nested/state.json");
        AtomicFile.write(target, "first, longer content".getBytes(StandardCharsets.UTF_8));
        AtomicFile.write(target, "second".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(target)).isEqualTo("second");
        try (var files = Files.list(target.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("state.json");
        }
    }

    @Test
    void anOwnerOnlyFileIsNeverReadableByOthersEvenWhenACrashLeftAReadableTempFile() throws Exception {
        assumeThat(AtomicFile.posix()).isTrue();
        Path target = dir.resolve("secret.key");
        Path staleTemp = dir.resolve("secret.key.tmp");
        Files.writeString(staleTemp, "left by a crash");
        Files.setPosixFilePermissions(staleTemp, PosixFilePermissions.fromString("rw-r--r--"));

        AtomicFile.write(target, "s3cret".getBytes(StandardCharsets.UTF_8), AtomicFile.Access.OWNER_ONLY);

        assertThat(Files.readString(target)).isEqualTo("s3cret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                .isEqualTo("rw-------");
    }

    @Test
    void restrictToOwnerTakesReadAccessFromOthersOnceAndSaysSo() throws Exception {
        assumeThat(AtomicFile.posix()).isTrue();
        Path old = dir.resolve("old.key");
        Files.writeString(old, "written by an older version");
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r--r--"));

        assertThat(AtomicFile.restrictToOwner(old)).isTrue();
        assertThat(AtomicFile.restrictToOwner(old)).isFalse();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(old)))
                .isEqualTo("rw-------");
    }
}
