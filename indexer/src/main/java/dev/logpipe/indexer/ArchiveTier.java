package dev.logpipe.indexer;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.archive.tier.ArchiveCatalog;
import dev.logpipe.archive.tier.ArchivePolicy;
import dev.logpipe.archive.tier.ArchiveRetention;
import dev.logpipe.archive.tier.ArchiveSchedule;
import dev.logpipe.archive.tier.Archiver;
import dev.logpipe.archive.tier.HotRestore;
import dev.logpipe.archive.tier.KeptHot;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.http.ArchiveAdmin;
import dev.logpipe.indexer.internal.archive.ArchiveHousekeeping;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.AuditLog;
import dev.logpipe.indexer.internal.retention.Housekeeping;
import dev.logpipe.indexer.internal.retention.LegalHold;
import dev.logpipe.indexer.internal.retention.LegalHolds;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive tier as one indexer runs it (docs/archive.md): the object store and catalog its settings name, the
 * archiver on a schedule driven by the indexer's loop, and retention of archives under the indexer's legal holds and
 * audit log. The standalone's query side searches through the same catalog and store ({@link #catalog()},
 * {@link #objects()}). The admin API's operations ({@link #list}, {@link #archiveNow}, {@link #restore}) are
 * thread-safe: they queue work the loop's thread does.
 */
public final class ArchiveTier implements ArchiveAdmin, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ArchiveTier.class);
    /** Batches of 2,000 records a loop step (about one a second) writes for a restore: indexing goes on between steps. */
    private static final int RESTORE_BATCHES_PER_STEP = 10;

    private final ArchiveSettings settings;
    private final ObjectStore objects;
    private final ArchiveCatalog catalog;
    private final ArchiveHousekeeping housekeeping;
    private final ArchiveSchedule schedule;
    private final HotRestore restore;
    private final ArchivePolicy policy;
    private final ShardStore hot;
    private final AuditLog audit;
    private final InstantSource clock;

    /**
     * What the tier uses of the indexer that runs it: the hot store it archives from and restores into, reads of that
     * store, the legal holds and the audit log its retention answers to, the metrics.
     */
    record Host(ShardStore hot, ShardSource hotReads, LegalHolds holds, AuditLog audit, IndexerMetrics metrics) {}

    private ArchiveTier(
            ArchiveSettings settings,
            IndexerConfig.Retention retention,
            ObjectStore objects,
            ArchiveCatalog catalog,
            Host host,
            InstantSource clock) {
        ShardStore hot = host.hot();
        AuditLog audit = host.audit();
        Archiver archiver = new Archiver(
                hot,
                host.hotReads(),
                objects,
                catalog,
                settings.writer(),
                settings.workDir(),
                clock,
                Archiver.Checkpoint.NONE);
        this.policy =
                new ArchivePolicy(retention.defaultArchiveAfter(), retention.tenantArchiveAfter(), settings.grace());
        this.schedule = new ArchiveSchedule(archiver, hot, policy, clock, settings.checkInterval());
        ArchiveRetention archiveRetention = new ArchiveRetention(
                catalog,
                objects,
                retention::days,
                (tenant, day) -> host.holds().holding(tenant, day).map(LegalHold::id),
                (event, fields) -> audit.append(event, o -> fields.forEach(o::putPOJO)),
                clock);
        this.restore = new HotRestore(
                hot,
                objects,
                catalog,
                clock,
                new HotRestore.Pace(RESTORE_BATCHES_PER_STEP, settings.restoreSettle()),
                (event, fields) -> audit.append(event, o -> fields.forEach(o::putPOJO)));
        this.housekeeping = new ArchiveHousekeeping(
                schedule, restore, archiveRetention, retention.checkInterval(), host.metrics(), clock);
        this.settings = settings;
        this.objects = objects;
        this.catalog = catalog;
        this.hot = hot;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * Opens the store and the catalog and sets up the schedule; nothing runs until the loop steps it.
     *
     * @throws IOException the catalog is unreadable or corrupt (named in the message)
     */
    static ArchiveTier open(ArchiveSettings settings, IndexerConfig.Retention retention, Host host, InstantSource clock)
            throws IOException {
        ArchiveCatalog catalog = ArchiveCatalog.load(settings.catalog());
        ObjectStore objects = settings.openStore();
        try {
            ArchiveTier tier = new ArchiveTier(settings, retention, objects, catalog, host, clock);
            log.info(
                    "archive tier: {} catalog={} archive_after={} days (per tenant {}), grace={}, check_interval={}",
                    settings.describe(),
                    settings.catalog(),
                    retention.defaultArchiveAfter(),
                    retention.tenantArchiveAfter(),
                    settings.grace(),
                    settings.checkInterval());
            return tier;
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

    /** The catalogued days of one tenant (or of all when empty), days kept hot, and the work asked and not done. */
    @Override
    public ArchiveAdmin.Listing list(Optional<String> tenant) {
        catalog.reloadIfChanged();
        return new ArchiveAdmin.Listing(
                tenant.map(catalog::entries).orElseGet(catalog::all),
                catalog.keptHot().stream()
                        .filter(k -> tenant.isEmpty() || k.tenant().equals(tenant.get()))
                        .toList(),
                schedule.requested().stream()
                        .filter(d -> tenant.isEmpty() || d.tenant().equals(tenant.get()))
                        .collect(java.util.stream.Collectors.toUnmodifiableSet()),
                restore.underWay().stream()
                        .filter(p -> tenant.isEmpty() || p.day().tenant().equals(tenant.get()))
                        .toList());
    }

    /**
     * An operator's "archive now": the day is archived at the loop's next steps, whatever its {@code archive_after}
     * (a day kept hot after a restore too). Audited. False when it was asked already.
     *
     * @throws NoSuchElementException the tenant has no hot day of records on that day
     * @throws IllegalStateException  the day is not closed yet (its end plus the grace is still to come)
     */
    @Override
    public boolean archiveNow(String tenant, LocalDate day, String who) throws IOException {
        ShardId shard = ShardId.records(tenant, day);
        if (!hot.shards(ShardKind.RECORDS).contains(shard)) {
            throw new NoSuchElementException("tenant " + tenant + " has no hot day " + day);
        }
        Instant now = clock.instant();
        if (!policy.closed(day, now)) {
            throw new IllegalStateException("day " + day + " is not closed until " + policy.closedAt(day)
                    + " (its end plus the grace of " + settings.grace() + "): records may still arrive for it");
        }
        boolean asked = schedule.request(shard);
        if (asked) {
            audit.append(
                    "archive_requested",
                    o -> o.put("tenant_id", tenant).put("day", day.toString()).put("who", who));
        }
        return asked;
    }

    /**
     * Restores an archived day into the hot tier and keeps it hot for {@code keep} (the loop writes it; the archive is
     * forgotten once the hot store committed it). Audited.
     *
     * @throws NoSuchElementException the day has no archive
     * @throws IllegalStateException  a restore of the day is under way already
     */
    @Override
    public KeptHot restore(String tenant, LocalDate day, Duration keep, String who) throws IOException {
        KeptHot kept = restore.request(tenant, day, clock.instant().plus(keep));
        audit.append(
                "restore_requested",
                o -> o.put("tenant_id", tenant)
                        .put("day", day.toString())
                        .put("kept_hot_until", kept.until().toString())
                        .put("who", who));
        return kept;
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
