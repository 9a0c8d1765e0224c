package dev.logpipe.archive.tier;

import dev.logpipe.archive.store.ObjectStore;
import java.io.IOException;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * Retention of the archive tier, by the hot tier's rule: a day of a tenant expires once it is more than its
 * {@code retention_days} before today (UTC), unless a legal hold covers it. An expired day is audited first, then
 * forgotten by the catalog (no longer searched), then its objects are deleted; a crash between the last two leaves
 * objects no entry names, which the next run deletes. The indexer supplies its holds and audit log through the two
 * small seams below.
 */
public final class ArchiveRetention {
    /** The legal hold covering a tenant's day, if any (its id). */
    @FunctionalInterface
    public interface Holds {
        Optional<String> holding(String tenant, LocalDate day) throws IOException;
    }

    /** Appends one audit line: an event and its fields. */
    @FunctionalInterface
    public interface Audit {
        void append(String event, Map<String, Object> fields) throws IOException;
    }

    /** What one run did. */
    public record Run(int deleted, int held, int orphansDeleted) {}

    private final ArchiveCatalog catalog;
    private final ObjectStore objects;
    private final ToIntFunction<String> retentionDays;
    private final Holds holds;
    private final Audit audit;
    private final InstantSource clock;

    public ArchiveRetention(
            ArchiveCatalog catalog,
            ObjectStore objects,
            ToIntFunction<String> retentionDays,
            Holds holds,
            Audit audit,
            InstantSource clock) {
        this.catalog = catalog;
        this.objects = objects;
        this.retentionDays = retentionDays;
        this.holds = holds;
        this.audit = audit;
        this.clock = clock;
    }

    private boolean expired(String tenant, LocalDate day) {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        return day.isBefore(today.minusDays(retentionDays.applyAsInt(tenant)));
    }

    public Run run() throws IOException {
        int deleted = 0;
        int held = 0;
        for (CatalogEntry e : catalog.all()) {
            if (!expired(e.tenant(), e.day())) {
                continue;
            }
            Optional<String> hold = holds.holding(e.tenant(), e.day());
            if (hold.isPresent()) {
                held++;
                continue;
            }
            audit.append(
                    "archive_deleted",
                    Map.of(
                            "tenant_id", e.tenant(),
                            "day", e.day().toString(),
                            "key", e.key(),
                            "records", e.records(),
                            "retention_days", retentionDays.applyAsInt(e.tenant()),
                            "reason", "retention"));
            catalog.remove(e.tenant(), e.day());
            String prefix = e.key().substring(0, e.key().lastIndexOf('/') + 1);
            for (String key : objects.list(prefix)) {
                objects.delete(key);
            }
            deleted++;
        }
        int orphans = 0;
        for (String key : objects.list("records/")) {
            // records/<tenant dir>/<day>/g<n>.lpa with no catalog entry for that day: left by a crash after forgetting
            String[] parts = key.split("/");
            if (parts.length != 4) {
                continue;
            }
            Optional<String> tenant = dev.logpipe.index.shard.TenantDirectory.decode(parts[1]);
            LocalDate day;
            try {
                day = LocalDate.parse(parts[2]);
            } catch (java.time.format.DateTimeParseException notADay) {
                continue;
            }
            if (tenant.isPresent()
                    && catalog.entry(tenant.get(), day).isEmpty()
                    && expired(tenant.get(), day)
                    && holds.holding(tenant.get(), day).isEmpty()) {
                objects.delete(key);
                orphans++;
            }
        }
        return new Run(deleted, held, orphans);
    }
}
