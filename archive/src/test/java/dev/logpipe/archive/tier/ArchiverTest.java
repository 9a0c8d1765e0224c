package dev.logpipe.archive.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.CorruptArchiveException;
import dev.logpipe.archive.format.RangeSource;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Integration
class ArchiverTest extends ArchiveTierFixture {
    @Test
    void aClosedDayMovesToTheArchiveVerifiedAndItsHotShardIsDeleted() throws IOException {
        String hotDigest;
        try (ShardSearcher s = reads.open(ACME_DAY).orElseThrow()) {
            dev.logpipe.archive.format.DayDigest d = new dev.logpipe.archive.format.DayDigest();
            HotDay.read(s, "acme", (r, decoded) -> d.add(r.eventTimeMillis(), r.recordId(), r.source()));
            hotDigest = d.hex();
        }

        Archiver.Outcome outcome = archiver(objects, Archiver.Checkpoint.NONE).archive(ACME_DAY);

        CatalogEntry entry = outcome.entry().orElseThrow();
        assertThat(entry.records()).isEqualTo(1500);
        assertThat(entry.digest()).isEqualTo(hotDigest);
        assertThat(entry.key()).isEqualTo("records/acme/2026-11-20/g1.lpa");
        assertThat(entry.coveredHot()).isNull();
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(objects.list("records/")).containsExactly("records/acme/2026-11-20/g1.lpa");
        assertThat(ArchiveCatalog.load(data.resolve("catalog.json")).entries("acme"))
                .containsExactly(entry);
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
        assertThat(searchable("beta")).hasSize(200).allMatch(id -> id.startsWith("beta-"));
    }

    static final class Crash extends RuntimeException {
        Crash(Archiver.Step step) {
            super("crash after " + step);
        }
    }

    @ParameterizedTest
    @EnumSource(Archiver.Step.class)
    void aCrashAfterAnyStepLosesNoRecordAndSearchesNoneTwice(Archiver.Step crashAt) throws IOException {
        Archiver crashing = archiver(objects, (step, day) -> {
            if (step == crashAt) {
                throw new Crash(step);
            }
        });

        assertThatThrownBy(() -> crashing.archive(ACME_DAY)).isInstanceOf(Crash.class);

        assertThat(searchable("acme")).as("after a crash at " + crashAt).isEqualTo(sorted(acmeIds));
        catalog = ArchiveCatalog.load(data.resolve("catalog.json")); // what a restarted process reads
        assertThat(searchable("acme")).as("after a restart").isEqualTo(sorted(acmeIds));

        Archiver restarted = archiver(objects, Archiver.Checkpoint.NONE);
        restarted.recover();
        if (!reads.shards(ShardKind.RECORDS, "acme").isEmpty()) {
            restarted.archive(ACME_DAY);
        }

        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(objects.list("records/acme/")).hasSize(1);
        assertThat(catalog.entry("acme", DAY).orElseThrow().coveredHot()).isNull();
        assertThat(searchable("beta")).hasSize(200);
    }

    /** Our own seam, failing as a store does: a 5xx on put, or an upload cut short. */
    static final class FaultyStore implements ObjectStore {
        final ObjectStore inner;
        final String fault;

        FaultyStore(ObjectStore inner, String fault) {
            this.inner = inner;
            this.fault = fault;
        }

        @Override
        public void put(String key, Path file) throws IOException {
            switch (fault) {
                case "5xx" -> throw new IOException("put " + key + " failed: 503 Slow Down");
                case "partial" -> {
                    byte[] all = Files.readAllBytes(file);
                    Path half = Files.write(file.resolveSibling("half"), java.util.Arrays.copyOf(all, all.length / 2));
                    inner.put(key, half);
                }
                default -> inner.put(key, file);
            }
        }

        @Override
        public RangeSource open(String key) throws IOException {
            return inner.open(key);
        }

        @Override
        public List<String> list(String prefix) throws IOException {
            return inner.list(prefix);
        }

        @Override
        public boolean delete(String key) throws IOException {
            return inner.delete(key);
        }

        @Override
        public String location() {
            return inner.location();
        }

        @Override
        public void close() {}
    }

    @Test
    void aStoreErrorOnUploadKeepsTheHotDayAndCataloguesNothing() throws IOException {
        assertThatThrownBy(() -> archiver(new FaultyStore(objects, "5xx"), Archiver.Checkpoint.NONE)
                        .archive(ACME_DAY))
                .hasMessageContaining("503");

        assertThat(catalog.entries("acme")).isEmpty();
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).containsExactly(ACME_DAY);
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
        assertThat(Files.list(data.resolve("work"))).isEmpty();
    }

    @Test
    void aPartialUploadFailsVerificationAndIsNeitherCataloguedNorTrusted() throws IOException {
        assertThatThrownBy(() -> archiver(new FaultyStore(objects, "partial"), Archiver.Checkpoint.NONE)
                        .archive(ACME_DAY))
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessageContaining("records/acme/2026-11-20/g1.lpa");

        assertThat(catalog.entries("acme")).isEmpty();
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).containsExactly(ACME_DAY);
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
    }

    @Test
    void lateRecordsAreSearchedBesideTheArchiveThenArchivedAgainAsTheNextGeneration() throws IOException {
        archiver(objects, Archiver.Checkpoint.NONE).archive(ACME_DAY);
        List<String> late = write("acme", 1500, 1510);

        List<String> all = new ArrayList<>(acmeIds);
        all.addAll(late);
        assertThat(searchable("acme")).isEqualTo(sorted(all));

        write("acme", 7, 8); // a replay of an archived record: absorbed by the next generation
        CatalogEntry second = archiver(objects, Archiver.Checkpoint.NONE)
                .archive(ACME_DAY)
                .entry()
                .orElseThrow();

        assertThat(second.generation()).isEqualTo(2);
        assertThat(second.records()).isEqualTo(1510);
        assertThat(searchable("acme")).isEqualTo(sorted(all));
        assertThat(objects.list("records/acme/")).containsExactly("records/acme/2026-11-20/g2.lpa");
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(Optional.of(ArchiveReader.open(second.key(), objects.open(second.key()))
                        .verify()))
                .contains(second.digest());
    }

    @Test
    void theScheduleArchivesDueDaysOfTenantsWithArchivingOnAndRetriesAFailedDay() throws IOException {
        ArchivePolicy policy = new ArchivePolicy(7, Map.of("beta", 0), java.time.Duration.ofHours(1));
        ArchiveSchedule failing = new ArchiveSchedule(
                archiver(new FaultyStore(objects, "5xx"), Archiver.Checkpoint.NONE),
                store,
                policy,
                InstantSource.fixed(NOW),
                java.time.Duration.ofMinutes(10));

        ArchiveSchedule.Run failed = failing.run();

        assertThat(failed.archived()).isEmpty();
        assertThat(failed.failures())
                .singleElement()
                .asString()
                .startsWith("index/acme/2026-11-20: ")
                .contains("503");
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).containsExactly(ACME_DAY);

        ArchiveSchedule.Run run = new ArchiveSchedule(
                        archiver(objects, Archiver.Checkpoint.NONE),
                        store,
                        policy,
                        InstantSource.fixed(NOW),
                        java.time.Duration.ofMinutes(10))
                .run();

        assertThat(run.archived()).extracting(CatalogEntry::tenant).containsExactly("acme");
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(reads.shards(ShardKind.RECORDS, "beta")).hasSize(1);
        assertThat(catalog.entries("beta")).isEmpty();
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
    }

    @Test
    void theSchedulePreparesADayOnItsOwnThreadAndCataloguesItOnTheWritingThreadsNextStep() throws Exception {
        java.util.concurrent.atomic.AtomicLong millis = new java.util.concurrent.atomic.AtomicLong(NOW.toEpochMilli());
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        Map<Archiver.Step, String> threads = new java.util.concurrent.ConcurrentHashMap<>();
        Archiver archiver = new Archiver(
                store,
                reads,
                objects,
                catalog,
                SMALL_BLOCKS,
                data.resolve("work"),
                clock,
                (step, day) -> threads.put(step, Thread.currentThread().getName()));
        ArchivePolicy policy = new ArchivePolicy(7, Map.of(), java.time.Duration.ofHours(1));
        List<CatalogEntry> archived = new ArrayList<>();
        try (ArchiveSchedule schedule =
                new ArchiveSchedule(archiver, store, policy, clock, java.time.Duration.ofMinutes(10))) {
            assertThat(schedule.step().archived()).isEmpty();
            assertThat(schedule.busy())
                    .as("the first check comes one interval after start")
                    .isFalse();

            millis.addAndGet(java.time.Duration.ofMinutes(10).toMillis());
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .pollInSameThread() // the steps are the writing thread's: this one
                    .until(() -> {
                        archived.addAll(schedule.step().archived());
                        return archived.size() == 2 && !schedule.busy();
                    });
        }

        assertThat(archived).extracting(CatalogEntry::tenant).containsExactlyInAnyOrder("acme", "beta");
        assertThat(threads.get(Archiver.Step.UPLOADED)).isEqualTo("archiver");
        assertThat(threads.get(Archiver.Step.CATALOGUED))
                .isEqualTo(Thread.currentThread().getName());
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
    }

    @Test
    void aDayThatGetsRecordsWhileItIsPreparedIsNotCataloguedAndKeepsItsHotShard() throws IOException {
        Archiver archiver = archiver(objects, Archiver.Checkpoint.NONE);
        Archiver.Verified verified = archiver.prepare(ACME_DAY).orElseThrow();
        List<IndexRecord> late = new ArrayList<>();
        LogRecord r = LogRecord.builder("a late record")
                .recordId("acme-late")
                .eventTime(T)
                .observedTime(T)
                .tenantId("acme")
                .build();
        byte[] line = CODEC.encode(r);
        late.add(new IndexRecord(r, T, T, line, 0, line.length));
        store.write(ACME_DAY, late); // written, not committed: deleting the shard now would lose it

        Archiver.Outcome outcome = archiver.commit(verified);

        assertThat(outcome.entry()).isEmpty();
        assertThat(catalog.entries("acme")).isEmpty();
        assertThat(objects.list("records/acme/")).as("the upload is dropped").isEmpty();
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).containsExactly(ACME_DAY);

        store.commit(Map.of("logpipe.records-0", 1701L));
        store.refresh();
        assertThat(archiver.archive(ACME_DAY).entry()).isPresent();
        List<String> all = new ArrayList<>(acmeIds);
        all.add("acme-late");
        assertThat(searchable("acme")).isEqualTo(sorted(all));
    }

    @ParameterizedTest
    @EnumSource(
            value = Archiver.Step.class,
            names = {"UPLOADED", "CATALOGUED"})
    void aKillNineBetweenUploadAndCatalogOrCatalogAndHotDeleteLosesNothing(Archiver.Step killAt) throws Exception {
        store.close();
        try (dev.logpipe.testkit.ChildJvm child = dev.logpipe.testkit.ChildJvm.start(
                data, "archiver", ArchiverChild.class.getName(), List.of(data.toString(), killAt.name()))) {
            child.awaitStdout("at " + killAt, java.time.Duration.ofSeconds(60));
            child.kill();
        }
        store = new LuceneStore(
                new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), InstantSource.fixed(NOW));
        reads = new LiveShards(store);
        catalog = ArchiveCatalog.load(data.resolve("catalog.json"));

        assertThat(catalog.entry("acme", DAY).isPresent()).isEqualTo(killAt == Archiver.Step.CATALOGUED);
        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));

        Archiver restarted = archiver(objects, Archiver.Checkpoint.NONE);
        restarted.recover();
        if (!reads.shards(ShardKind.RECORDS, "acme").isEmpty()) {
            restarted.archive(ACME_DAY);
        }

        assertThat(searchable("acme")).isEqualTo(sorted(acmeIds));
        assertThat(reads.shards(ShardKind.RECORDS, "acme")).isEmpty();
        assertThat(objects.list("records/acme/")).hasSize(1);
    }

    @Test
    void retentionDeletesExpiredArchivesAuditedFirstUnlessAHoldKeepsThem() throws IOException {
        archiver(objects, Archiver.Checkpoint.NONE).archive(ACME_DAY);
        archiver(objects, Archiver.Checkpoint.NONE).archive(ShardId.records("beta", DAY));
        List<String> audit = new ArrayList<>();
        Map<String, Integer> days = Map.of("acme", 5, "beta", 30);
        java.util.concurrent.atomic.AtomicReference<String> hold =
                new java.util.concurrent.atomic.AtomicReference<>("H-1");
        ArchiveRetention retention = new ArchiveRetention(
                catalog,
                objects,
                days::get,
                (tenant, day) -> tenant.equals("acme") ? Optional.ofNullable(hold.get()) : Optional.empty(),
                (event, fields) -> audit.add(event + " " + new java.util.TreeMap<>(fields) + " catalogued="
                        + catalog.entry("acme", DAY).isPresent()),
                InstantSource.fixed(NOW));

        assertThat(retention.run()).isEqualTo(new ArchiveRetention.Run(0, 1, 0));
        assertThat(catalog.entries("acme")).hasSize(1);

        hold.set(null);
        objects.put("records/acme/2026-11-19/g1.lpa", Files.write(data.resolve("orphan"), new byte[] {1}));

        assertThat(retention.run()).isEqualTo(new ArchiveRetention.Run(1, 0, 1));
        assertThat(audit)
                .containsExactly(
                        "archive_deleted {day=2026-11-20, key=records/acme/2026-11-20/g1.lpa, reason=retention,"
                                + " records=1500, retention_days=5, tenant_id=acme} catalogued=true");
        assertThat(catalog.entries("acme")).isEmpty();
        assertThat(objects.list("records/")).containsExactly("records/beta/2026-11-20/g1.lpa");
        assertThat(searchable("acme")).isEmpty();
        assertThat(searchable("beta")).hasSize(200);
    }

    @Test
    void theStatusCountsHotAndArchivedDaysPerTenant() throws IOException {
        archiver(objects, Archiver.Checkpoint.NONE).archive(ACME_DAY);

        TierStatus acme = TierStatus.of("acme", reads, catalog);
        TierStatus beta = TierStatus.of("beta", reads, catalog);

        CatalogEntry e = catalog.entry("acme", DAY).orElseThrow();
        assertThat(acme).isEqualTo(new TierStatus("acme", 0, 0, 1, 1500, e.bytes(), e.sourceBytes(), DAY, DAY));
        assertThat(e.bytes()).isEqualTo(Files.size(data.resolve("archive").resolve(e.key())));
        assertThat(beta).isEqualTo(new TierStatus("beta", 1, 200, 0, 0, 0, 0, null, null));
    }
}
