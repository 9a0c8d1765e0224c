package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.ForwarderConfig.Source;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.parse.LineParser;
import dev.logpipe.forwarder.internal.tail.SourceScanner.Found;
import dev.logpipe.forwarder.internal.watermark.FlushPolicy;
import dev.logpipe.forwarder.internal.watermark.Watermark;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The first scan's handling of watermark entries whose files were rotated or deleted while the forwarder was down. */
class RestartRecoveryTest {
    @TempDir
    Path dir;

    private WatermarkStore store;
    private ForwarderMetrics metrics;
    private final List<String> registered = new ArrayList<>();
    private final Map<String, Long> startedAt = new HashMap<>();

    @BeforeEach
    void open() throws Exception {
        store = WatermarkStore.open(
                dir.resolve("state/watermarks.json"),
                new FlushPolicy(Duration.ofSeconds(1), 1),
                WatermarkStore.OnCorrupt.REFUSE,
                InstantSource.system());
        metrics = new ForwarderMetrics(new SimpleMeterRegistry());
    }

    @AfterEach
    void close() throws IOException {
        store.close();
    }

    private RestartRecovery recovery() {
        SourceScanner scanner = new SourceScanner(List.of(new Source(dir, List.of("*.log"), "svc")));
        return new RestartRecovery(store, scanner, new FileOpener(scanner), metrics);
    }

    private final RestartRecovery.OpenFiles files = new RestartRecovery.OpenFiles() {
        @Override
        public boolean isOpenPath(String path) {
            return registered.contains(path);
        }

        @Override
        public Tailer register(Found f, FileChannel ch, long start, Tailer predecessor) throws IOException {
            registered.add(f.path().toString());
            startedAt.put(f.path().toString(), start);
            Fingerprint fp = Fingerprint.of(ch);
            return new Tailer(
                    f.path().toString(),
                    f.key(),
                    ch,
                    fp,
                    new Tailer.Start(start, -1),
                    new FileDecoding(1024, null, new LineParser(), null, null, "host", "svc"));
        }
    };

    private Watermark watermarkOf(Path file, long offset) throws IOException {
        FileKey key = FileKey.of(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Fingerprint fp = Fingerprint.of(ch);
            return new Watermark(offset, key.inode(), key.device(), Long.toHexString(fp.hash()), fp.bytes(), ch.size());
        }
    }

    @Test
    void aFileRenamedWhileStoppedIsResumedFromItsWatermarkAndItsOldPathWaitsForIt() throws IOException {
        Path app = Files.writeString(dir.resolve("app.log"), "one\ntwo\nthree\n", StandardCharsets.UTF_8);
        store.put(app.toString(), watermarkOf(app, 4));
        Path rotated = Files.move(app, dir.resolve("app.log.1"));
        Map<String, Tailer> vacated = new HashMap<>();

        recovery().settleStaleEntries(files, vacated);

        assertThat(registered).containsExactly(rotated.toString());
        assertThat(startedAt.get(rotated.toString())).isEqualTo(4L);
        assertThat(vacated).containsKey(app.toString());
        assertThat(store.get(app.toString())).isNull();
        assertThat(metrics.gapBytes.count()).isZero();
    }

    @Test
    void aFileDeletedWhileStoppedIsForgottenAndItsUnreadBytesCountAsAGap() throws IOException {
        Path app = Files.writeString(dir.resolve("app.log"), "0123456789\n", StandardCharsets.UTF_8);
        store.put(app.toString(), watermarkOf(app, 4));
        Files.delete(app);

        recovery().settleStaleEntries(files, new HashMap<>());

        assertThat(registered).isEmpty();
        assertThat(store.get(app.toString())).isNull();
        assertThat(metrics.gapBytes.count()).isEqualTo(7.0);
    }

    @Test
    void aFileStillAtItsPathKeepsItsEntryEvenWhenNotWatched() throws IOException {
        Path other = Files.writeString(dir.resolve("other.txt"), "kept\n", StandardCharsets.UTF_8);
        Watermark w = watermarkOf(other, 2);
        store.put(other.toString(), w);

        recovery().settleStaleEntries(files, new HashMap<>());

        assertThat(store.get(other.toString())).isEqualTo(w);
        assertThat(registered).isEmpty();
    }

    @Test
    void anInodeReusedByANewFileIsNotTheWatermarkedFile() throws IOException {
        Path app = Files.writeString(dir.resolve("app.log"), "original content\n", StandardCharsets.UTF_8);
        Watermark w = watermarkOf(app, 5);
        Files.writeString(app, "different bytes\n", StandardCharsets.UTF_8); // same inode, new first bytes
        try (FileChannel ch = FileChannel.open(app, StandardOpenOption.READ)) {
            assertThat(FileIdentity.matches(w, FileKey.of(app), ch)).isFalse();
        }
        assertThat(FileIdentity.find(dir, w)).isNull();
        assertThat(FileIdentity.find(dir, FileKey.of(app))).isEqualTo(app);
    }

    @Test
    void aDirectoryThatIsGoneKeepsItsEntriesForWhenItComesBack() throws IOException {
        Path sub = Files.createDirectories(dir.resolve("mnt"));
        Path app = Files.writeString(sub.resolve("app.log"), "x\n", StandardCharsets.UTF_8);
        store.put(app.toString(), watermarkOf(app, 1));
        Files.delete(app);
        Files.delete(sub);

        recovery().settleStaleEntries(files, new HashMap<>());

        assertThat(store.get(app.toString())).isNotNull();
    }
}
