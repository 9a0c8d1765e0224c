package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.time.LocalDate;

/**
 * One tenant's days per tier, for the status API: hot days and their documents (from shard metadata), archived days,
 * their records, archive bytes and the source bytes they hold. A day with an archive and late hot records counts in
 * both. The oldest and newest archived days are null when none is.
 */
public record TierStatus(
        String tenant,
        int hotDays,
        long hotDocs,
        int archivedDays,
        long archivedRecords,
        long archiveBytes,
        long sourceBytes,
        LocalDate oldestArchivedDay,
        LocalDate newestArchivedDay) {
    public static TierStatus of(String tenant, ShardSource hot, ArchiveCatalog catalog) throws IOException {
        int hotDays = 0;
        long hotDocs = 0;
        for (ShardId s : hot.shards(ShardKind.RECORDS, tenant)) {
            hotDays++;
            hotDocs += hot.latestMetadata(s).map(m -> m.docs()).orElse(0L);
        }
        int days = 0;
        long records = 0;
        long bytes = 0;
        long source = 0;
        LocalDate oldest = null;
        LocalDate newest = null;
        for (CatalogEntry e : catalog.entries(tenant)) { // oldest first
            if (oldest == null) {
                oldest = e.day();
            }
            newest = e.day();
            days++;
            records += e.records();
            bytes += e.bytes();
            source += e.sourceBytes();
        }
        return new TierStatus(tenant, hotDays, hotDocs, days, records, bytes, source, oldest, newest);
    }
}
