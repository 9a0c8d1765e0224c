package dev.logpipe.indexer;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.archive.tier.ArchiveCatalog;
import dev.logpipe.archive.tier.ArchivePolicy;
import dev.logpipe.archive.tier.ArchiveRetention;
import dev.logpipe.archive.tier.ArchiveSchedule;
import dev.logpipe.archive.tier.Archiver;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.internal.archive.ArchiveHousekeeping;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.AuditLog;
import dev.logpipe.indexer.internal.retention.Housekeeping;
import dev.logpipe.indexer.internal.retention.LegalHold;
import dev.logpipe.indexer.internal.retention.LegalHolds;
import java.io.IOException;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive tier as one indexer runs it (docs/archive.md): the object store and catalog its settings name, the
 * archiver on a schedule driven by the indexer's loop, and retention of archives under the indexer's legal holds and
 * audit log. The standalone's query side searches through the same catalog and store ({@link #catalog()},
 * {@link #objects()}).
 */
public final class ArchiveTier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ArchiveTier.class);

    private final ArchiveSettings settings;
    private final ObjectStore objects;
    private final ArchiveCatalog catalog;
    private final ArchiveHousekeeping housekeeping;

    private ArchiveTier(
            ArchiveSettings settings, ObjectStore objects, ArchiveCatalog catalog, ArchiveHousekeeping housekeeping) {
        this.settings = settings;
        this.objects = objects;
        this.catalog = catalog;
        this.housekeeping = housekeeping;
    }

    /**
     * Opens the store and the catalog and sets up the schedule; nothing runs until the loop steps it.
     *
     * @throws IOException the catalog is unreadable or corrupt (named in the message)
     */
    static ArchiveTier open(
            ArchiveSettings settings,
            IndexerConfig.Retention retention,
            ShardStore hot,
            ShardSource hotReads,
            LegalHolds holds,
            AuditLog audit,
            IndexerMetrics metrics,
            InstantSource clock)
            throws IOException {
        ArchiveCatalog catalog = ArchiveCatalog.load(settings.catalog());
        ObjectStore objects = settings.openStore();
        try {
            Archiver archiver = new Archiver(
                    hot,
                    hotReads,
                    objects,
                    catalog,
                    settings.writer(),
                    settings.workDir(),
                    clock,
                    Archiver.Checkpoint.NONE);
            ArchivePolicy policy = new ArchivePolicy(
                    retention.defaultArchiveAfter(), retention.tenantArchiveAfter(), settings.grace());
            ArchiveSchedule schedule = new ArchiveSchedule(archiver, hot, policy, clock, settings.checkInterval());
            ArchiveRetention archiveRetention = new ArchiveRetention(
                    catalog,
                    objects,
                    retention::days,
                    (tenant, day) -> holds.holding(tenant, day).map(LegalHold::id),
                    (event, fields) -> audit.append(event, o -> fields.forEach(o::putPOJO)),
                    clock);
            log.info(
                    "archive tier: {} catalog={} archive_after={} days (per tenant {}), grace={}, check_interval={}",
                    settings.describe(),
                    settings.catalog(),
                    retention.defaultArchiveAfter(),
                    retention.tenantArchiveAfter(),
                    settings.grace(),
                    settings.checkInterval());
            return new ArchiveTier(
                    settings,
                    objects,
                    catalog,
                    new ArchiveHousekeeping(schedule, archiveRetention, retention.checkInterval(), metrics, clock));
        } catch (RuntimeException e) {
            objects.close();
            throw e;
        }
    }

    public ArchiveSettings settings() {
        return settings;
    }

    public ArchiveCatalog catalog() {
        return catalog;
    }

    public ObjectStore objects() {
        return objects;
    }

    /** The loop's job. */
    Housekeeping housekeeping() {
        return housekeeping;
    }

    @Override
    public void close() throws IOException {
        housekeeping.close();
        objects.close();
    }
}
