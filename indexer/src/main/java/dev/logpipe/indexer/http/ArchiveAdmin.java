package dev.logpipe.indexer.http;

import dev.logpipe.archive.tier.CatalogEntry;
import dev.logpipe.archive.tier.HotRestore;
import dev.logpipe.archive.tier.KeptHot;
import dev.logpipe.index.shard.ShardId;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the archive admin API asks of the archive tier ({@code dev.logpipe.indexer.ArchiveTier} implements it): list,
 * archive a day now, restore a day into the hot tier. Thread-safe.
 */
public interface ArchiveAdmin {
    /** What the archive tier holds and does now. */
    record Listing(
            List<CatalogEntry> archives,
            List<KeptHot> keptHot,
            Set<ShardId> archiveRequested,
            List<HotRestore.Progress> restoring) {}

    /** The catalogued days of one tenant (or of all when empty), days kept hot, and the work asked and not done. */
    Listing list(Optional<String> tenant);

    /**
     * Archives a closed hot day at the loop's next steps, whatever its {@code archive_after}. Audited. False when it
     * was asked already.
     *
     * @throws java.util.NoSuchElementException the tenant has no hot day of records on that day
     * @throws IllegalStateException            the day is not closed yet
     */
    boolean archiveNow(String tenant, LocalDate day, String who) throws IOException;

    /**
     * Restores an archived day into the hot tier and keeps it hot for {@code keep}. Audited.
     *
     * @throws java.util.NoSuchElementException the day has no archive
     * @throws IllegalStateException            a restore of the day is under way already
     */
    KeptHot restore(String tenant, LocalDate day, Duration keep, String who) throws IOException;
}
