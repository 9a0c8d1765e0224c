package dev.logpipe.archive.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Restoring an archived day into the hot tier, and archiving a day now, as the admin API asks (real Lucene). */
@Integration
class HotRestoreTest extends ArchiveTierFixture {
    private static final Instant UNTIL = NOW.plus(Duration.ofDays(7));
    private final AtomicLong millis = new AtomicLong(NOW.toEpochMilli());
    private final InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
    private final List<String> audited = new CopyOnWriteArrayList<>();

    @BeforeEach
    void archiveAcmesDay() throws IOException {
        assertThat(archiver(objects, Archiver.Checkpoint.NONE).archive(ACME_DAY).entry())
                .isPresent();
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
    }

    private HotRestore restore(Duration settle) {
        return new HotRestore(
                store,
                objects,
                catalog,
                clock,
                new HotRestore.Pace(1, settle),
                (event, fields) -> audited.add(event + " " + fields));
    }

    /** Steps as the indexer's loop does (a step, then the loop's commit) until the restore finishes or fails. */
    private HotRestore.Step stepUntilFinished(HotRestore restore) {
        List<HotRestore.Step> finished = new ArrayList<>();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    HotRestore.Step s = restore.step();
                    store.commit(Map.of());
                    store.refresh();
                    if (!s.restored().isEmpty() || !s.failures().isEmpty()) {
                        finished.add(s);
                    }
                    return !finished.isEmpty();
                });
        return finished.get(0);
    }

    private List<String> hotIds(String tenant) throws IOException {
        List<String> ids = new ArrayList<>();
        try (ShardSearcher s = reads.open(ShardId.records(tenant, DAY)).orElseThrow()) {
            HotDay.read(s, tenant, (r, decoded) -> ids.add(r.recordId()));
        }
        ids.sort(null);
        return ids;
    }

    @Test
    void aRestoredDayIsHotAgainWithEveryRecordOnceItsArchiveForgottenAndDeleted() throws IOException {
        try (HotRestore restore = restore(Duration.ZERO)) {
            restore.request("acme", DAY, UNTIL);
            assertThat(restore.underWay()).extracting(p -> p.day().day()).containsExactly(DAY);

            HotRestore.Step step = stepUntilFinished(restore);

            assertThat(step.failures()).isEmpty();
            assertThat(step.restored()).containsExactly(new KeptHot("acme", DAY, UNTIL));
        }
        assertThat(hotIds("acme")).isEqualTo(sorted(acmeIds));
        assertThat(catalog.entry("acme", DAY)).isEmpty();
        assertThat(objects.list("records/")).noneMatch(k -> k.contains("/acme/"));
        assertThat(searchable("acme")).as("each record once, from the hot tier").isEqualTo(sorted(acmeIds));
        assertThat(catalog.keptHot("acme", DAY)).contains(new KeptHot("acme", DAY, UNTIL));
        assertThat(audited)
                .singleElement()
                .asString()
                .startsWith("archive_restored")
                .contains("records=1500");
    }

    @Test
    void theArchiveIsForgottenOnlyOnceTheHotStoreCommittedAndTheSettleTimePassed() throws IOException {
        try (HotRestore restore = restore(Duration.ofMinutes(1))) {
            restore.request("acme", DAY, UNTIL);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
                restore.step();
                return restore.underWay().get(0).phase().startsWith("waiting");
            });
            assertThat(catalog.entry("acme", DAY)).as("not committed yet").isPresent();

            store.commit(Map.of());
            restore.step();
            assertThat(restore.underWay().get(0).phase()).isEqualTo("settling");
            assertThat(catalog.entry("acme", DAY))
                    .as("committed, a query process not reopened yet")
                    .isPresent();

            millis.addAndGet(Duration.ofMinutes(1).toMillis());
            assertThat(restore.step().restored()).hasSize(1);
        }
        assertThat(catalog.entry("acme", DAY)).isEmpty();
    }

    @Test
    void aRestoreCutShortByACrashResumesAtTheNextStart() throws IOException {
        try (HotRestore restore = restore(Duration.ZERO)) {
            restore.request("acme", DAY, UNTIL);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
                restore.step();
                return restore.underWay().get(0).written() > 0;
            });
        }
        store.rollback(); // the crash: what was written and not committed is gone
        catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
        assertThat(catalog.entry("acme", DAY)).isPresent();
        assertThat(catalog.keptHot("acme", DAY)).isPresent();

        try (HotRestore restarted = restore(Duration.ZERO)) {
            assertThat(stepUntilFinished(restarted).restored()).hasSize(1);
        }
        assertThat(hotIds("acme")).isEqualTo(sorted(acmeIds));
        assertThat(catalog.entry("acme", DAY)).isEmpty();
    }

    @Test
    void aCorruptArchiveFailsTheRestoreKeepsItCataloguedAndNoLongerKeepsTheDayHot() throws IOException {
        String key = catalog.entry("acme", DAY).orElseThrow().key();
        Path file = data.resolve("archive").resolve(key);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b, 100);
            b.put(0, (byte) (b.get(0) ^ 0x55));
            ch.write(b.flip(), 100);
        }
        try (HotRestore restore = restore(Duration.ZERO)) {
            restore.request("acme", DAY, UNTIL);

            HotRestore.Step step = stepUntilFinished(restore);

            assertThat(step.restored()).isEmpty();
            assertThat(step.failures())
                    .singleElement()
                    .asString()
                    .contains("acme 2026-11-20")
                    .contains(key);
            assertThat(restore.underWay()).isEmpty();
        }
        assertThat(catalog.entry("acme", DAY)).isPresent();
        assertThat(catalog.keptHot("acme", DAY)).isEmpty();
        assertThat(Files.exists(file)).isTrue();
        assertThat(audited).isEmpty();
    }

    @Test
    void aDayWithoutAnArchiveOrAlreadyBeingRestoredIsRefused() throws IOException {
        try (HotRestore restore = restore(Duration.ZERO)) {
            assertThatThrownBy(() -> restore.request("beta", DAY, UNTIL))
                    .isInstanceOf(NoSuchElementException.class)
                    .hasMessageContaining("beta");
            restore.request("acme", DAY, UNTIL);
            assertThatThrownBy(() -> restore.request("acme", DAY, UNTIL))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("under way");
        }
        assertThat(catalog.keptHot("beta", DAY)).isEmpty();
    }

    @Test
    void theScheduleLeavesADayKeptHotUntilItsTimeIsOverAndArchiveNowOverridesIt() throws IOException {
        try (HotRestore restore = restore(Duration.ZERO)) {
            restore.request("acme", DAY, UNTIL);
            stepUntilFinished(restore);
        }
        ArchivePolicy policy = new ArchivePolicy(7, Map.of(), Duration.ofHours(1));
        Archiver archiver = new Archiver(
                store, reads, objects, catalog, SMALL_BLOCKS, data.resolve("work"), clock, Archiver.Checkpoint.NONE);
        try (ArchiveSchedule schedule = new ArchiveSchedule(archiver, store, policy, clock, Duration.ofMinutes(10))) {
            assertThat(schedule.run().archived())
                    .as("acme's day is kept hot, beta's is due")
                    .extracting(CatalogEntry::tenant)
                    .containsExactly("beta");

            schedule.request(ACME_DAY);
            List<CatalogEntry> archived = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
                archived.addAll(schedule.step().archived());
                return !archived.isEmpty() && !schedule.busy();
            });
            assertThat(archived).extracting(CatalogEntry::tenant).containsExactly("acme");
            assertThat(schedule.requested()).isEmpty();
        }
        assertThat(catalog.keptHot("acme", DAY)).as("archive now ends the keep").isEmpty();
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
    }

    @Test
    void archiveNowTakesADayWhoseArchiveAfterHasNotComeYet() throws IOException {
        ArchivePolicy policy = new ArchivePolicy(30, Map.of(), Duration.ofHours(1));
        Archiver archiver = new Archiver(
                store, reads, objects, catalog, SMALL_BLOCKS, data.resolve("work"), clock, Archiver.Checkpoint.NONE);
        ShardId betaDay = ShardId.records("beta", DAY);
        try (ArchiveSchedule schedule = new ArchiveSchedule(archiver, store, policy, clock, Duration.ofMinutes(10))) {
            assertThat(schedule.run().archived()).isEmpty();
            assertThat(schedule.request(betaDay)).isTrue();
            assertThat(schedule.request(betaDay)).as("asked already").isFalse();
            List<CatalogEntry> archived = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
                archived.addAll(schedule.step().archived());
                return !archived.isEmpty() && !schedule.busy();
            });
            assertThat(archived).extracting(CatalogEntry::day).containsExactly(DAY);
        }
        assertThat(reads.shards(ShardKind.RECORDS, "beta")).isEmpty();
    }
}
