package dev.logpipe.indexer.internal.archive;

import dev.logpipe.archive.tier.ArchiveRetention;
import dev.logpipe.archive.tier.ArchiveSchedule;
import dev.logpipe.archive.tier.CatalogEntry;
import dev.logpipe.archive.tier.HotRestore;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.Housekeeping;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive tier's part of the indexer's loop (docs/archive.md): every call steps the {@link ArchiveSchedule}
 * (cataloguing a day its thread has prepared, starting the next) and the {@link HotRestore} (writing the next batches
 * of a day being restored), and every retention {@code check_interval} applies
 * retention to the archives ({@link ArchiveRetention}). Counts what it did in the indexer's metrics.
 */
public final class ArchiveHousekeeping implements Housekeeping, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ArchiveHousekeeping.class);

    private final ArchiveSchedule schedule;
    private final HotRestore restore;
    private final ArchiveRetention retention;
    private final Duration retentionInterval;
    private final IndexerMetrics metrics;
    private final InstantSource clock;
    private long lastRetentionMillis = Long.MIN_VALUE;

    public ArchiveHousekeeping(
            ArchiveSchedule schedule,
            HotRestore restore,
            ArchiveRetention retention,
            Duration retentionInterval,
            IndexerMetrics metrics,
            InstantSource clock) {
        this.schedule = schedule;
        this.restore = restore;
        this.retention = retention;
        this.retentionInterval = retentionInterval;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public void runIfDue() throws IOException {
        ArchiveSchedule.Run run = schedule.step();
        for (CatalogEntry e : run.archived()) {
            metrics.archived(e.records(), e.bytes(), e.sourceBytes());
        }
        run.failures().forEach(f -> metrics.archiveFailed());
        HotRestore.Step restored = restore.step();
        restored.restored().forEach(k -> metrics.restored(true));
        restored.failures().forEach(f -> metrics.restored(false));
        long now = clock.millis();
        if (lastRetentionMillis == Long.MIN_VALUE || now - lastRetentionMillis >= retentionInterval.toMillis()) {
            lastRetentionMillis = now;
            ArchiveRetention.Run r = retention.run();
            if (r.deleted() > 0 || r.orphansDeleted() > 0) {
                log.info(
                        "archive retention deleted {} archived days and {} orphaned objects ({} kept by legal holds)",
                        r.deleted(),
                        r.orphansDeleted(),
                        r.held());
            }
            metrics.archivesDeleted(r.deleted());
        }
    }

    @Override
    public boolean needsCommit() {
        return restore.needsCommit();
    }

    @Override
    public String name() {
        return "archive";
    }

    @Override
    public void close() {
        schedule.close();
        restore.close();
    }
}
