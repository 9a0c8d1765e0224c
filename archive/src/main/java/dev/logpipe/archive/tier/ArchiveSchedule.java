package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.write.ShardStore;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the {@link Archiver} runs, driven by the thread that writes the hot store (as retention is).
 *
 * <p>{@link #step} is that thread's call, made often (the indexer's loop makes it every second): at the first call it
 * finishes what a crash left ({@link Archiver#recover}); every {@code checkInterval} (the first one interval after
 * start) it lists the hot days of records the {@link ArchivePolicy} says are due. The long part of each day (read,
 * write, upload, read back: {@link Archiver#prepare}) runs on this schedule's own thread, one day at a time, so
 * indexing does not wait for it; a later {@code step} catalogues the day and deletes its hot shard
 * ({@link Archiver#commit}) on the writing thread, dropping the upload if records arrived meanwhile. A day that fails
 * (an object store down, a read-back mismatch) keeps its hot shard, is logged with its cause and reported in the
 * {@link Run}, and is tried again at the next check; the other days go on.
 *
 * <p>{@link #request} is an operator's "archive now" (docs/archive.md#admin-api-and-cli): the day goes before the due
 * days at the next step, whatever its {@code archive_after}. Days restored into the hot tier ({@link KeptHot}) are
 * not due until their time is over. {@link #run} does a whole check on the calling thread (tests).
 */
public final class ArchiveSchedule implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(ArchiveSchedule.class);

    /** What one check or step did. */
    public record Run(List<CatalogEntry> archived, List<String> failures) {
        public static final Run NOTHING = new Run(List.of(), List.of());

        public Run {
            archived = List.copyOf(archived);
            failures = List.copyOf(failures);
        }
    }

    private final Archiver archiver;
    private final ShardStore hot;
    private final ArchivePolicy policy;
    private final InstantSource clock;
    private final Duration checkInterval;
    private final ExecutorService worker;
    private final Deque<ShardId> due = new ArrayDeque<>();
    private final Queue<ShardId> requested = new ConcurrentLinkedQueue<>();
    private final Set<ShardId> asked = ConcurrentHashMap.newKeySet();
    private long lastCheckMillis = Long.MIN_VALUE;
    private boolean recovered;
    private ShardId preparing;
    private Future<Optional<Archiver.Verified>> prepared;

    public ArchiveSchedule(
            Archiver archiver, ShardStore hot, ArchivePolicy policy, InstantSource clock, Duration checkInterval) {
        this.archiver = archiver;
        this.hot = hot;
        this.policy = policy;
        this.clock = clock;
        this.checkInterval = checkInterval;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "archiver");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The writing thread's call: catalogues a day whose archive is ready, starts preparing the next due day, lists the
     * due days when a check is due. Returns what it catalogued or saw fail (usually nothing).
     */
    public Run step() throws IOException {
        long now = clock.millis();
        if (!recovered) {
            archiver.recover();
            recovered = true;
            lastCheckMillis = now;
        }
        List<CatalogEntry> archived = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        if (prepared != null && prepared.isDone()) {
            ShardId day = preparing;
            Future<Optional<Archiver.Verified>> done = prepared;
            prepared = null;
            preparing = null;
            asked.remove(day);
            try {
                Optional<Archiver.Verified> verified = done.get();
                if (verified.isPresent()) {
                    archiver.commit(verified.get()).entry().ifPresent(archived::add);
                }
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                log.warn("archiving {} failed, its hot shard is kept and tried again at the next check", day, cause);
                failures.add(day + ": " + cause.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Run.NOTHING;
            } catch (IOException e) {
                log.warn(
                        "cataloguing the archive of {} failed, its hot shard is kept and tried again at the next "
                                + "check",
                        day,
                        e);
                failures.add(day + ": " + e.getMessage());
            }
        }
        for (ShardId day = requested.poll(); day != null; day = requested.poll()) {
            if (archiver.catalog().unkeep(day.tenant(), day.day())) {
                log.info("{} was kept hot after a restore; archived now as an operator asked", day);
            }
            if (!day.equals(preparing)) {
                due.remove(day);
                due.addFirst(day);
            }
        }
        if (prepared == null && due.isEmpty() && now - lastCheckMillis >= checkInterval.toMillis()) {
            lastCheckMillis = now;
            archiver.finishPending();
            archiver.catalog().dropExpiredKeeps(clock.instant());
            due.addAll(dueDays());
        }
        if (prepared == null && !due.isEmpty()) {
            ShardId day = due.poll();
            preparing = day;
            prepared = worker.submit(() -> archiver.prepare(day));
        }
        return new Run(archived, failures);
    }

    /**
     * Archives {@code day} at the next step, before the due days, whatever its {@code archive_after} (the caller checks
     * that the day is closed). Thread-safe; false when it is asked already.
     */
    public boolean request(ShardId day) {
        if (day.kind() != ShardKind.RECORDS) {
            throw new IllegalArgumentException("only record days are archived, not " + day);
        }
        if (!asked.add(day)) {
            return false;
        }
        requested.add(day);
        return true;
    }

    /** The days an operator asked to archive that are not catalogued (or failed) yet. */
    public Set<ShardId> requested() {
        return Set.copyOf(asked);
    }

    /** True while a day is being prepared or more due days wait. */
    public boolean busy() {
        return prepared != null || !due.isEmpty();
    }

    /** One whole check on the calling thread: recover (the first time), then every due day. */
    public Run run() throws IOException {
        if (!recovered) {
            archiver.recover();
            recovered = true;
        } else {
            archiver.finishPending();
        }
        List<CatalogEntry> archived = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (ShardId day : dueDays()) {
            try {
                archiver.archive(day).entry().ifPresent(archived::add);
            } catch (IOException e) {
                log.warn("archiving {} failed, its hot shard is kept and tried again at the next check", day, e);
                failures.add(day + ": " + e.getMessage());
            }
        }
        return new Run(archived, failures);
    }

    private List<ShardId> dueDays() throws IOException {
        List<ShardId> out = new ArrayList<>();
        for (ShardId day : hot.shards(ShardKind.RECORDS)) {
            if (policy.due(day.tenant(), day.day(), clock.instant())
                    && archiver.catalog()
                            .keptHot(day.tenant(), day.day())
                            .filter(k -> k.keeps(clock.instant()))
                            .isEmpty()) {
                out.add(day);
            }
        }
        return out;
    }

    /** Stops the archiver's thread; a day being prepared is abandoned (its upload, if any, is redone next time). */
    @Override
    public void close() {
        worker.shutdownNow();
    }
}
