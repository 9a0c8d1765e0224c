package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.forwarder.RunningLoop;
import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import dev.logpipe.record.RecordId;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tail loop against real files and a small fake sink (our own seam) that can be made to fail. */
class TailLoopTest {
    @TempDir
    Path dir;

    /** Records what it acknowledged; throws while {@code failing} is set. */
    static final class RecordingSink implements Sink {
        final List<String> messages = new ArrayList<>();
        final List<String> ids = new ArrayList<>();
        final AtomicBoolean failing = new AtomicBoolean();
        volatile int attempts;
        /** When > 0, that one publish call (1-based) fails. */
        volatile int failCall;

        @Override
        public synchronized void publish(Batch batch) throws IOException {
            attempts++;
            if (failing.get() || attempts == failCall) {
                throw new IOException("sink is down (test)");
            }
            for (int i = 0; i < batch.size(); i++) {
                int from = batch.wireStart(i);
                messages.add(new String(batch.wire().array(), from, batch.wireEnd(i) - from, StandardCharsets.UTF_8));
                ids.add(batch.recordId(i));
            }
        }

        synchronized List<String> messages() {
            return List.copyOf(messages);
        }

        synchronized List<String> ids() {
            return List.copyOf(ids);
        }

        @Override
        public Format format() {
            return Format.RAW;
        }

        @Override
        public String describe() {
            return "recording";
        }

        @Override
        public void close() {}
    }

    private RunningLoop loop;
    private ForwarderMetrics metrics;

    private WatermarkStore start(String yaml, RecordingSink sink) throws Exception {
        loop = RunningLoop.start(dir, yaml, sink);
        metrics = loop.metrics();
        return loop.store();
    }

    @AfterEach
    void stopAll() throws Exception {
        if (loop != null) {
            loop.close();
        }
    }

    private static final String CONFIG = RunningLoop.WATCH;

    private void append(String file, String text) throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(
                dir.resolve("logs").resolve(file), text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void failingSinkStallsTheWatermarkAndNothingIsDroppedWhenItRecovers() throws Exception {
        append("app.log", "one\ntwo\n");
        RecordingSink sink = new RecordingSink();
        sink.failing.set(true);
        WatermarkStore store = start(CONFIG, sink);
        String path = dir.resolve("logs/app.log").toString();

        await().atMost(Duration.ofSeconds(10)).until(() -> sink.attempts >= 3);
        append("app.log", "three\n");
        assertThat(store.get(path) == null ? 0 : store.get(path).offset()).isZero();
        assertThat(metrics.publishFailures.count()).isGreaterThanOrEqualTo(3);

        sink.failing.set(false);
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.messages().size() == 3);
        assertThat(sink.messages()).containsExactly("one", "two", "three");
        await().atMost(Duration.ofSeconds(5)).until(() -> store.get(path).offset() == 14);
    }

    @Test
    void recordIdsOfAFileThatStartedWithoutANewlineUseItsFinalFingerprint() throws Exception {
        append("tiny.log", "ab");
        RecordingSink sink = new RecordingSink();
        WatermarkStore store = start(CONFIG, sink);
        String path = dir.resolve("logs/tiny.log").toString();
        await().atMost(Duration.ofSeconds(5)).until(() -> store.get(path) != null);
        assertThat(sink.messages()).isEmpty();
        append("tiny.log", "c\nnext\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.messages().size() == 2);
        Path file = dir.resolve("logs/tiny.log");
        FileKey key = FileKey.of(file);
        Fingerprint fp;
        try (var ch = FileChannel.open(file)) {
            fp = Fingerprint.of(ch);
        }
        assertThat(fp.complete()).isTrue();
        assertThat(sink.ids())
                .containsExactly(
                        RecordId.fileScope(InetHost.name(dir), key.device(), key.inode(), fp.hex())
                                .at(0),
                        RecordId.fileScope(InetHost.name(dir), key.device(), key.inode(), fp.hex())
                                .at(4));
    }

    /** The host name the config loader picks by default. */
    static final class InetHost {
        static String name(Path dir) throws Exception {
            return new ConfigLoader(dir).parse("{}", "host").host();
        }
    }

    @Test
    void aFailedBatchIsRetriedBeforeAnyLaterBatchSoRecordsKeepTheirOrder() throws Exception {
        StringBuilder text = new StringBuilder();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            String line = String.format("line %06d", i);
            expected.add(line);
            text.append(line).append('\n');
        }
        append("app.log", text.toString());
        RecordingSink sink = new RecordingSink();
        sink.failCall = 2; // the second batch fails once, while later ones are ready to go
        WatermarkStore store = start(CONFIG + "  read_buffer: 4KiB\n", sink);
        String path = dir.resolve("logs/app.log").toString();
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        store.get(path) != null && store.get(path).offset() == Files.size(dir.resolve("logs/app.log")));
        assertThat(sink.messages()).containsExactlyElementsOf(expected);
        assertThat(metrics.publishFailures.count()).isEqualTo(1);
    }

    @Test
    void filteredLinesAdvanceTheWatermarkWithoutBeingPublished() throws Exception {
        append("app.log", "keep 1\nhealthcheck ok\nkeep 2\nhealthcheck ok\n");
        RecordingSink sink = new RecordingSink();
        WatermarkStore store = start(CONFIG + "filter:\n  exclude: ['^healthcheck']\n", sink);
        String path = dir.resolve("logs/app.log").toString();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.get(path) != null && store.get(path).offset() == 44);
        assertThat(sink.messages()).containsExactly("keep 1", "keep 2");
        assertThat(metrics.recordsFiltered.count()).isEqualTo(2);
    }
}
