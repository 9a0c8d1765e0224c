package dev.logpipe.archive.tier;

import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores archived days into the hot tier for heavy investigation (docs/archive.md#admin-api-and-cli), driven by the
 * thread that writes the hot store, as the {@link ArchiveSchedule} is.
 *
 * <p>{@link #request} (any thread) first records the day as {@link KeptHot} in the catalog, so the schedule does not
 * archive it again. Its own thread ({@code archive-restore}) reads the archive (every block checked, the whole day
 * against the catalog's count and digest) into a bounded queue of batches; each {@link #step} writes at most
 * {@code batchesPerStep} of them into the hot store as upserts (a record id already hot is replaced by the same
 * record), so indexing goes on between batches. Once the hot store has committed them and {@code settle} has passed
 * (for a query process to reopen its shards), the catalog forgets the archive and its objects are deleted: the day is
 * hot again. Until then searches read the archive with the hot records over it, so every answer is whole at every
 * point. A crash leaves the day kept hot with its archive still catalogued: the next start resumes the restore
 * (the upserts absorb what was written before). A failure (store down, corrupt archive) keeps the archive
 * catalogued, stops keeping the day hot, and is logged and reported.
 */
public final class HotRestore implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(HotRestore.class);
    private static final int QUEUED_BATCHES = 4;

    /** What one step finished: days now hot, and restores that failed (day: cause). */
    public record Step(List<KeptHot> restored, List<String> failures) {
        public static final Step NOTHING = new Step(List.of(), List.of());

        public Step {
            restored = List.copyOf(restored);
            failures = List.copyOf(failures);
        }
    }

    /** A restore under way, for the admin API: its phase and how many records it wrote. */
    public record Progress(KeptHot day, String phase, long written) {}

    private final ShardStore hot;
    private final ObjectStore objects;
    private final ArchiveCatalog catalog;
    private final InstantSource clock;
    private final Duration settle;
    private final int batchesPerStep;
    private final ArchiveRetention.Audit audit;
    private final ExecutorService reader;
    private final Queue<KeptHot> requested = new ConcurrentLinkedQueue<>();
    private final Set<ShardId> inFlight = ConcurrentHashMap.newKeySet();
    private final Map<ShardId, Progress> progress = new ConcurrentHashMap<>();
    private boolean resumed;
    private Current current;

    /** The restore the writing thread works on. */
    private static final class Current {
        final KeptHot day;
        final ShardId shard;
        final CatalogEntry entry;
        final BlockingQueue<Item> batches = new ArrayBlockingQueue<>(QUEUED_BATCHES);
        Future<?> reading;
        long written;
        boolean allWritten;
        long committedAtMillis = -1;

        Current(KeptHot day, CatalogEntry entry) {
            this.day = day;
            this.shard = ShardId.records(day.tenant(), day.day());
            this.entry = entry;
        }
    }

    /** A batch read, the end of the day, or the failure that stopped the read. */
    private record Item(List<IndexRecord> batch, IOException failure) {
        static final Item END = new Item(null, null);
    }

    /**
     * How fast a restore goes: batches written a writing-thread step (at least one), and how long after the hot store
     * committed a restored day its archive is forgotten and deleted.
     */
    public record Pace(int batchesPerStep, Duration settle) {
        public Pace {
            if (batchesPerStep < 1) {
                throw new IllegalArgumentException("batchesPerStep must be >= 1, was " + batchesPerStep);
            }
        }
    }

    public HotRestore(
            ShardStore hot,
            ObjectStore objects,
            ArchiveCatalog catalog,
            InstantSource clock,
            Pace pace,
            ArchiveRetention.Audit audit) {
        this.hot = hot;
        this.objects = objects;
        this.catalog = catalog;
        this.clock = clock;
        this.settle = pace.settle();
        this.batchesPerStep = pace.batchesPerStep();
        this.audit = audit;
        this.reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "archive-restore");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Asks for a day to be restored and kept hot until {@code until} (any thread); durable when this returns.
     *
     * @throws NoSuchElementException the day has no archive (the message names it)
     * @throws IllegalStateException  a restore of the day is under way already
     */
    public KeptHot request(String tenant, LocalDate day, Instant until) throws IOException {
        ShardId shard = ShardId.records(tenant, day);
        if (catalog.entry(tenant, day).isEmpty()) {
            throw new NoSuchElementException("tenant " + tenant + " has no archive of " + day);
        }
        if (!inFlight.add(shard)) {
            throw new IllegalStateException("a restore of " + tenant + " " + day + " is under way already");
        }
        KeptHot kept = new KeptHot(tenant, day, until);
        try {
            catalog.keepHot(kept);
        } catch (IOException | RuntimeException e) {
            inFlight.remove(shard);
            throw e;
        }
        progress.put(shard, new Progress(kept, "queued", 0));
        requested.add(kept);
        log.info("restore of {} {} into the hot tier asked; kept hot until {}", tenant, day, until);
        return kept;
    }

    /**
     * True while the restore under way wrote records the hot store has not committed (the writing thread's call: its
     * loop then commits even without new records of its own).
     */
    public boolean needsCommit() {
        return current != null && current.written > 0 && hot.uncommitted(current.shard);
    }

    /** The restores asked for and not finished. */
    public List<Progress> underWay() {
        return new ArrayList<>(progress.values());
    }

    /** The writing thread's call: resumes restores a crash cut short (first call), writes the next batches. */
    public Step step() throws IOException {
        if (!resumed) {
            resumed = true;
            for (KeptHot k : catalog.keptHot()) {
                ShardId shard = ShardId.records(k.tenant(), k.day());
                if (catalog.entry(k.tenant(), k.day()).isPresent() && inFlight.add(shard)) {
                    log.info("resuming the restore of {} {} that the last run did not finish", k.tenant(), k.day());
                    progress.put(shard, new Progress(k, "queued", 0));
                    requested.add(k);
                }
            }
        }
        if (current == null) {
            KeptHot next = requested.poll();
            if (next == null) {
                return Step.NOTHING;
            }
            Optional<CatalogEntry> entry = catalog.entry(next.tenant(), next.day());
            if (entry.isEmpty()) {
                return failed(next, "its archive is no longer catalogued (deleted by retention?)");
            }
            Current c = new Current(next, entry.get());
            c.reading = reader.submit(() -> read(c));
            current = c;
        }
        try {
            return advance(current);
        } catch (IOException e) {
            Current c = current;
            return failed(c, e.getMessage());
        }
    }

    private Step advance(Current c) throws IOException {
        for (int i = 0; i < batchesPerStep && !c.allWritten; i++) {
            Item item = c.batches.poll();
            if (item == null) {
                break;
            }
            if (item.failure() != null) {
                throw item.failure();
            }
            if (item == Item.END) {
                c.allWritten = true;
                break;
            }
            ShardStore.Written w = hot.write(c.shard, item.batch());
            if (!w.rejections().isEmpty()) {
                throw new IOException("the hot store refused " + w.rejections().size() + " records, the first: "
                        + w.rejections().get(0));
            }
            c.written += item.batch().size();
        }
        if (!c.allWritten) {
            progress.put(c.shard, new Progress(c.day, "writing", c.written));
            return Step.NOTHING;
        }
        if (hot.uncommitted(c.shard)) {
            progress.put(c.shard, new Progress(c.day, "waiting for the hot store's commit", c.written));
            return Step.NOTHING;
        }
        long now = clock.millis();
        if (c.committedAtMillis < 0) {
            c.committedAtMillis = now;
        }
        if (now - c.committedAtMillis < settle.toMillis()) {
            progress.put(c.shard, new Progress(c.day, "settling", c.written));
            return Step.NOTHING;
        }
        return finish(c);
    }

    private Step finish(Current c) throws IOException {
        Optional<CatalogEntry> now = catalog.entry(c.day.tenant(), c.day.day());
        if (now.isEmpty() || now.get().generation() != c.entry.generation()) {
            throw new IOException("the day was archived again or deleted while it was restored; ask again");
        }
        catalog.remove(c.day.tenant(), c.day.day());
        String prefix = c.entry.key().substring(0, c.entry.key().lastIndexOf('/') + 1);
        for (String key : objects.list(prefix)) {
            objects.delete(key);
        }
        audit.append(
                "archive_restored",
                Map.of(
                        "tenant_id", c.day.tenant(),
                        "day", c.day.day().toString(),
                        "key", c.entry.key(),
                        "records", c.written,
                        "kept_hot_until", c.day.until().toString()));
        log.info(
                "restored {} {} into the hot tier ({} records from {}); kept hot until {}",
                c.day.tenant(),
                c.day.day(),
                c.written,
                c.entry.key(),
                c.day.until());
        done(c.shard);
        current = null;
        return new Step(List.of(c.day), List.of());
    }

    private Step failed(Current c, String cause) throws IOException {
        c.reading.cancel(true);
        current = null;
        return failed(c.day, cause);
    }

    private Step failed(KeptHot day, String cause) throws IOException {
        ShardId shard = ShardId.records(day.tenant(), day.day());
        done(shard);
        catalog.unkeep(day.tenant(), day.day());
        log.error(
                "restoring {} {} into the hot tier failed: {}; its archive stays catalogued and searched, ask again "
                        + "once the cause is fixed",
                day.tenant(),
                day.day(),
                cause);
        return new Step(List.of(), List.of(day.tenant() + " " + day.day() + ": " + cause));
    }

    private void done(ShardId shard) {
        inFlight.remove(shard);
        progress.remove(shard);
    }

    /** The reader thread: the archive's records in batches, then END, or the failure. */
    private void read(Current c) {
        RecordBatch batch = new RecordBatch();
        try {
            ArchivedDayRecords.read(objects, c.entry, r -> {
                if (batch.add(r)) {
                    put(c, new Item(batch.take(), null));
                }
            });
            if (!batch.isEmpty()) {
                put(c, new Item(batch.take(), null));
            }
            put(c, Item.END);
        } catch (IOException | RuntimeException e) {
            try {
                put(c, new Item(null, e instanceof IOException io ? io : new IOException(e.toString(), e)));
            } catch (IOException interrupted) {
                // cancelled: nobody waits for the failure
            }
        }
    }

    private static void put(Current c, Item item) throws IOException {
        try {
            c.batches.put(item);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("restore of " + c.shard + " cancelled", e);
        }
    }

    /** Stops the reader thread; a restore under way resumes at the next start. */
    @Override
    public void close() {
        reader.shutdownNow();
    }
}
