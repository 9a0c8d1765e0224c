package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveFooter;
import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.format.ArchivedRecord;
import dev.logpipe.archive.format.Block;
import dev.logpipe.archive.format.DayDigest;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.record.LogRecord;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves closed hot days to the archive tier (docs/archive.md#the-archiver), one day at a time, in an order that a
 * crash at any step leaves every record searchable exactly once or, at worst, twice only until the next run (never
 * lost, never absent and uncatalogued):
 *
 * <ol>
 *   <li>{@link Step#WRITTEN}: the hot shard (merged with the day's previous archive, when late records came) is read
 *       in merge order into a local archive file, its {@link DayDigest} computed on the side;
 *   <li>{@link Step#UPLOADED}: the file is put to the object store under a new generation's key;
 *   <li>{@link Step#VERIFIED}: the object is read back whole: its record count and digest must equal the hot day's;
 *   <li>{@link Step#CATALOGUED}: the catalog records the new generation and the hot shard it absorbed;
 *   <li>{@link Step#HOT_DELETED}: the hot shard is deleted, if it is still as it was read;
 *   <li>{@link Step#DONE}: the catalog forgets the absorbed hot shard and the previous generation's object is deleted.
 * </ol>
 *
 * <p>Until step 4 the hot shard is what is searched; from step 4 the archive is, and a planner skips the hot shard
 * while its metadata still shows the absorbed state ({@link TierPlan}). {@link #recover} finishes what a crash left
 * (pending hot deletes, objects no catalog entry names). Runs on the thread that writes the hot store (as retention
 * does), so no record is written to a day between its read and its delete. Not thread-safe.
 *
 * <p>The constructor takes the archiver's collaborators (hot store and reads, object store, catalog, writer settings,
 * work directory, clock, checkpoint), each built by its owner once; no value groups them.
 */
public final class Archiver {
    private static final Logger log = LoggerFactory.getLogger(Archiver.class);

    /** The steps of {@link #archive}, in order. */
    public enum Step {
        WRITTEN,
        UPLOADED,
        VERIFIED,
        CATALOGUED,
        HOT_DELETED,
        DONE
    }

    /** Told after each step; a test's way to crash the archiver there (by throwing). */
    @FunctionalInterface
    public interface Checkpoint {
        Checkpoint NONE = (step, day) -> {};

        void reached(Step step, ShardId day) throws IOException;
    }

    /** What {@link #archive} did: the catalog entry written, or why nothing was. */
    public record Outcome(Optional<CatalogEntry> entry, String note) {}

    private final ShardStore hot;
    private final ShardSource hotReads;
    private final ObjectStore objects;
    private final ArchiveCatalog catalog;
    private final ArchiveWriter.Settings settings;
    private final Path workDir;
    private final InstantSource clock;
    private final Checkpoint checkpoint;

    public Archiver(
            ShardStore hot,
            ShardSource hotReads,
            ObjectStore objects,
            ArchiveCatalog catalog,
            ArchiveWriter.Settings settings,
            Path workDir,
            InstantSource clock,
            Checkpoint checkpoint) {
        this.hot = hot;
        this.hotReads = hotReads;
        this.objects = objects;
        this.catalog = catalog;
        this.settings = settings;
        this.workDir = workDir;
        this.clock = clock;
        this.checkpoint = checkpoint;
    }

    /**
     * Steps 1 to 3 done: the day's archive is uploaded and verified, not catalogued yet. {@code hotBefore} is the hot
     * shard's state when it was read, so {@link #commit} can tell whether records arrived since.
     */
    public record Verified(
            ShardId day, CatalogEntry.HotState hotBefore, Optional<CatalogEntry> previous, CatalogEntry entry) {}

    ArchiveCatalog catalog() {
        return catalog;
    }

    /** Archives one hot day of records (a no-op when the day has no hot shard): {@link #prepare}, then {@link #commit}. */
    public Outcome archive(ShardId day) throws IOException {
        Optional<Verified> verified = prepare(day);
        if (verified.isEmpty()) {
            return new Outcome(Optional.empty(), "no hot shard " + day);
        }
        return commit(verified.get());
    }

    /**
     * Steps 1 to 3 (the long part: read, write, upload, read back): safe on any thread while the hot store goes on
     * writing, since nothing is catalogued or deleted. Empty when the day has no hot shard.
     */
    public Optional<Verified> prepare(ShardId day) throws IOException {
        if (day.kind() != ShardKind.RECORDS) {
            throw new IllegalArgumentException("only record shards are archived, not " + day);
        }
        CatalogEntry.HotState before = hotState(day);
        Optional<CatalogEntry> previous = catalog.entry(day.tenant(), day.day());
        int generation = previous.map(e -> e.generation() + 1).orElse(1);
        String key = CatalogEntry.key(day.tenant(), day.day(), generation);
        Files.createDirectories(workDir);
        Path local = Files.createTempFile(workDir, "archive-", ".lpa");
        try {
            DayDigest expected = new DayDigest();
            ArchiveFooter footer;
            try (ShardSearcher searcher = hotReads.open(day).orElse(null);
                    OutputStream out = new BufferedOutputStream(Files.newOutputStream(local), 1 << 16)) {
                if (searcher == null) {
                    return Optional.empty();
                }
                ArchiveWriter writer = new ArchiveWriter(day, settings, out);
                if (previous.isEmpty()) {
                    HotDay.read(searcher, day.tenant(), (r, decoded) -> {
                        expected.add(r.eventTimeMillis(), r.recordId(), r.source());
                        writer.add(r, decoded);
                    });
                } else {
                    merge(previous.get(), searcher, day, (r, decoded) -> {
                        expected.add(r.eventTimeMillis(), r.recordId(), r.source());
                        writer.add(r, decoded);
                    });
                }
                footer = writer.finish();
            }
            checkpoint.reached(Step.WRITTEN, day);

            objects.put(key, local);
            checkpoint.reached(Step.UPLOADED, day);

            ArchiveReader back = ArchiveReader.open(key, objects.open(key));
            String digest = back.verify();
            String want = expected.hex();
            if (back.footer().records() != expected.records() || !digest.equals(want)) {
                objects.delete(key);
                throw new IOException(
                        "archive " + key + " read back " + back.footer().records() + " records with digest "
                                + digest + ", the hot day has " + expected.records() + " with " + want
                                + ": not catalogued, hot shard kept");
            }
            checkpoint.reached(Step.VERIFIED, day);
            CatalogEntry entry = new CatalogEntry(
                    day.tenant(),
                    day.day(),
                    generation,
                    key,
                    footer.records(),
                    back.size(),
                    footer.sourceBytes(),
                    footer.digest(),
                    footer.minEventTimeMillis(),
                    footer.maxEventTimeMillis(),
                    clock.instant(),
                    before);
            return Optional.of(new Verified(day, before, previous, entry));
        } finally {
            Files.deleteIfExists(local);
        }
    }

    /**
     * Steps 4 to 6, on the thread that writes the hot store (quick: a catalog write, a shard delete, object deletes).
     * When the hot day changed since {@link #prepare} read it (records arrived, committed or not) or the catalog's
     * entry for the day is no longer the one it merged, the upload is deleted and nothing is catalogued: the day is
     * archived again by a later run.
     */
    public Outcome commit(Verified verified) throws IOException {
        ShardId day = verified.day();
        CatalogEntry.HotState now = hotState(day);
        Optional<CatalogEntry> current = catalog.entry(day.tenant(), day.day());
        if (!now.equals(verified.hotBefore()) || hot.uncommitted(day) || !current.equals(verified.previous())) {
            objects.delete(verified.entry().key());
            log.info(
                    "hot day {} changed while it was archived: the upload {} is dropped and the day archived again "
                            + "by a later run",
                    day,
                    verified.entry().key());
            return new Outcome(Optional.empty(), "hot day changed while archiving " + day);
        }
        CatalogEntry entry = verified.entry();
        catalog.put(entry);
        checkpoint.reached(Step.CATALOGUED, day);

        entry = finishHotDelete(entry);
        log.info(
                "archived {} as {} ({} records, {} bytes of {} source bytes, generation {})",
                day,
                entry.key(),
                entry.records(),
                entry.bytes(),
                entry.sourceBytes(),
                entry.generation());
        return new Outcome(Optional.of(entry), "archived");
    }

    private CatalogEntry.HotState hotState(ShardId day) throws IOException {
        return hot.metadata(day)
                .map(m -> new CatalogEntry.HotState(m.docs(), m.updated()))
                .orElse(new CatalogEntry.HotState(0, null));
    }

    /** Steps 5 and 6 of an entry whose hot shard is pending; returns the entry as catalogued after. */
    private CatalogEntry finishHotDelete(CatalogEntry entry) throws IOException {
        ShardId day = ShardId.records(entry.tenant(), entry.day());
        if (entry.coveredHot() != null) {
            Optional<ShardMetadata> now = hot.metadata(day);
            if (hot.uncommitted(day)) {
                log.info("hot shard {} has records not committed yet: its delete waits for the next run", day);
                return entry;
            }
            if (TierPlan.absorbed(entry, now)) {
                hot.delete(day);
            } else if (now.isPresent()) {
                log.warn("hot shard {} changed after it was archived: kept, and archived again by a later run", day);
            }
            checkpoint.reached(Step.HOT_DELETED, day);
            entry = entry.withCoveredHot(null);
            catalog.put(entry);
        }
        removeOthers(entry);
        checkpoint.reached(Step.DONE, day);
        return entry;
    }

    private void removeOthers(CatalogEntry entry) throws IOException {
        String prefix = entry.key().substring(0, entry.key().lastIndexOf('/') + 1);
        for (String other : objects.list(prefix)) {
            if (!other.equals(entry.key())) {
                objects.delete(other);
            }
        }
    }

    /**
     * Finishes what a crash left: deletes hot shards an entry absorbed (when still as read), forgets them, deletes
     * objects of a catalogued day that the catalog does not name. Returns how many entries it finished.
     */
    public int recover() throws IOException {
        int n = 0;
        for (CatalogEntry e : catalog.all()) {
            if (e.coveredHot() != null) {
                finishHotDelete(e);
                n++;
            } else {
                removeOthers(e);
            }
        }
        return n;
    }

    /**
     * Steps 5 and 6 of entries whose hot delete is still pending (a crash, or a hot shard that held uncommitted records
     * when it was due): cheap, for every check. Returns how many were pending.
     */
    public int finishPending() throws IOException {
        int n = 0;
        for (CatalogEntry e : catalog.all()) {
            if (e.coveredHot() != null) {
                finishHotDelete(e);
                n++;
            }
        }
        return n;
    }

    /**
     * The previous generation's records and the hot shard's (late records), in merge order; a record id in both is the
     * hot one (the later write), as an upsert would have it.
     */
    private void merge(CatalogEntry previous, ShardSearcher searcher, ShardId day, HotDay.Sink sink)
            throws IOException {
        List<ArchivedRecord> late = new ArrayList<>();
        List<LogRecord> lateDecoded = new ArrayList<>();
        HotDay.read(searcher, day.tenant(), (r, decoded) -> {
            late.add(r);
            lateDecoded.add(decoded);
        });
        Set<String> lateIds = new HashSet<>();
        late.forEach(r -> lateIds.add(r.recordId()));
        ArchiveReader old = ArchiveReader.open(previous.key(), objects.open(previous.key()));
        int li = 0;
        for (int b = 0; b < old.footer().blocks().size(); b++) {
            Block block = old.block(b);
            for (int i = 0; i < block.size(); i++) {
                ArchivedRecord r = block.record(i);
                if (lateIds.contains(r.recordId())) {
                    continue;
                }
                while (li < late.size() && before(late.get(li), r)) {
                    sink.accept(late.get(li), lateDecoded.get(li));
                    li++;
                }
                sink.accept(r, block.decoded(i));
            }
        }
        for (; li < late.size(); li++) {
            sink.accept(late.get(li), lateDecoded.get(li));
        }
    }

    private static boolean before(ArchivedRecord a, ArchivedRecord b) {
        return a.eventTimeMillis() != b.eventTimeMillis()
                ? a.eventTimeMillis() < b.eventTimeMillis()
                : IdBytes.of(a.recordId()).compareTo(IdBytes.of(b.recordId())) > 0;
    }
}
