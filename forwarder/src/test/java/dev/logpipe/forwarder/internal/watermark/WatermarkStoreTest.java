package dev.logpipe.forwarder.internal.watermark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.forwarder.StateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatermarkStoreTest {
    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T08:00:00Z"));
    private final InstantSource clock = now::get;

    private WatermarkStore open(Path p, Duration interval, long every, WatermarkStore.OnCorrupt onCorrupt)
            throws Exception {
        return WatermarkStore.open(p, new FlushPolicy(interval, every), onCorrupt, clock);
    }

    @Test
    void aFileInTheDocumentedFormatLoads() throws Exception {
        Path p = dir.resolve("watermarks.json");
        Files.writeString(
                p,
                "{\n  \"files\": {\n    \"/var/log/billing/application.log\": {\n"
                        + "      \"offset\": 1048576,\n      \"inode\": 883241\n    }\n  }\n}\n");
        try (WatermarkStore s = open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE)) {
            Watermark w = s.get("/var/log/billing/application.log");
            assertThat(w.offset()).isEqualTo(1048576);
            assertThat(w.inode()).isEqualTo(883241);
            assertThat(w.device()).isEqualTo(Watermark.UNKNOWN);
            assertThat(w.fingerprint()).isNull();
        }
    }

    @Test
    void flushWritesAtomicallyAndRoundTrips() throws Exception {
        Path p = dir.resolve("state/watermarks.json");
        Watermark w = new Watermark(26, 2146434, 65024, "aaf9206b85c5015b", 9, 33);
        try (WatermarkStore s = open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE)) {
            s.put("/logs/app.log", w);
            s.flush();
        }
        assertThat(Files.exists(p.resolveSibling("watermarks.json.tmp"))).isFalse();
        assertThat(Files.readString(p)).contains("\"files\"", "\"offset\" : 26", "\"inode\" : 2146434");
        try (WatermarkStore s = open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE)) {
            assertThat(s.get("/logs/app.log")).isEqualTo(w);
        }
    }

    @Test
    void flushIsDueByIntervalOrByCountOrAlwaysWithZeroInterval() throws Exception {
        try (WatermarkStore s =
                open(dir.resolve("a.json"), Duration.ofSeconds(1), 3, WatermarkStore.OnCorrupt.REFUSE)) {
            assertThat(s.flushIfDue()).isFalse();
            s.put("f", new Watermark(1, 1, 1, null, 0, 1));
            assertThat(s.flushIfDue()).isFalse();
            now.set(now.get().plusMillis(1000));
            assertThat(s.flushIfDue()).isTrue();
            s.put("f", new Watermark(2, 1, 1, null, 0, 2));
            s.countUpdates(2);
            assertThat(s.flushIfDue()).isTrue();
        }
        try (WatermarkStore s = open(dir.resolve("b.json"), Duration.ZERO, 0, WatermarkStore.OnCorrupt.REFUSE)) {
            s.put("f", new Watermark(1, 1, 1, null, 0, 1));
            assertThat(s.flushIfDue()).isTrue();
            assertThat(s.flushIfDue()).isFalse();
        }
    }

    @Test
    void corruptFileRefusesToLoadNamingThePath() throws Exception {
        Path p = dir.resolve("watermarks.json");
        Files.writeString(p, "{\"files\": {\"/x\": {\"offset\": 12");
        assertThatThrownBy(() -> open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE))
                .isInstanceOf(StateException.class)
                .hasMessageContaining(p.toString())
                .hasMessageContaining("--reset-watermarks");
        Files.writeString(p, "{\"files\": {\"/x\": {\"offset\": -1, \"inode\": 3}}}");
        assertThatThrownBy(() -> open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE))
                .hasMessageContaining("\"offset\" must be a non-negative integer");
        Files.writeString(p, "");
        assertThatThrownBy(() -> open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE))
                .hasMessageContaining("empty");
    }

    @Test
    void corruptFileIsArchivedWithATimestampWhenResetIsAsked() throws Exception {
        Path p = dir.resolve("watermarks.json");
        Files.writeString(p, "not json");
        try (WatermarkStore s = open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.RESET)) {
            assertThat(s.entries()).isEmpty();
        }
        Path backup = dir.resolve("watermarks.json.corrupt.20261201T080000000Z");
        assertThat(backup).hasContent("not json");
        assertThat(p).doesNotExist();
    }

    @Test
    void secondStoreOnTheSameFileIsRefused() throws Exception {
        Path p = dir.resolve("watermarks.json");
        try (WatermarkStore first = open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE)) {
            assertThatThrownBy(() -> open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE))
                    .isInstanceOf(StateException.class)
                    .hasMessageContaining("in use by another log-forwarder");
        }
        open(p, Duration.ofSeconds(1), 0, WatermarkStore.OnCorrupt.REFUSE).close();
    }

    @Test
    void publishedJournalRemembersThePreviousRunAndStartsAfresh() throws Exception {
        Path j = dir.resolve("watermarks.json.published");
        PublishedJournal.Key a = new PublishedJournal.Key(1, 2, 3);
        PublishedJournal.Key b = new PublishedJournal.Key(1, 5, 6);
        try (PublishedJournal first = PublishedJournal.open(j, 16)) {
            assertThat(first.previouslyPublished(a)).isEqualTo(-1);
            first.published(a, 100);
            first.published(a, 250);
            first.published(b, 7);
            first.release(b);
        }
        try (PublishedJournal second = PublishedJournal.open(j, 16)) {
            // A run that crashes before publishing anything must not erase what the next run needs.
            assertThat(second.previouslyPublished(a)).isEqualTo(250);
            assertThat(second.previouslyPublished(b)).isEqualTo(-1);
        }
        try (PublishedJournal third = PublishedJournal.open(j, 16)) {
            assertThat(third.previouslyPublished(a)).isEqualTo(250);
            third.retainOnly(Set.of());
        }
        try (PublishedJournal fourth = PublishedJournal.open(j, 16)) {
            assertThat(fourth.previouslyPublished(a)).isEqualTo(-1);
        }
    }
}
