package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardMetadata;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What to search for a tenant's days across both tiers: each catalogued day's archive, and each hot shard except one
 * that a catalogued archive already holds (its entry's {@code coveredHot} still matches the shard's metadata), so no
 * record is searched twice and none is left out. Another tenant's entries are never planned.
 */
public final class TierPlan {
    /** The sources of one day: its archive (when catalogued) and whether its hot shard is searched. */
    public record Day(LocalDate day, Optional<CatalogEntry> archive, boolean searchHot) {}

    /** Reads a hot shard's metadata (the read seam's {@code ShardSource.metadata}). */
    @FunctionalInterface
    public interface HotMetadata {
        Optional<ShardMetadata> of(ShardId shard) throws IOException;
    }

    private TierPlan() {}

    /** Every day of {@code tenant} with a hot shard or an archive, oldest first. */
    public static List<Day> plan(String tenant, List<ShardId> hotShards, ArchiveCatalog catalog, HotMetadata metadata)
            throws IOException {
        TreeSet<LocalDate> days = new TreeSet<>();
        for (ShardId s : hotShards) {
            if (!s.tenant().equals(tenant)) {
                throw new IllegalArgumentException("shard " + s + " is not of tenant " + tenant);
            }
            days.add(s.day());
        }
        catalog.entries(tenant).forEach(e -> days.add(e.day()));
        List<Day> out = new ArrayList<>();
        for (LocalDate d : days) {
            Optional<CatalogEntry> entry = catalog.entry(tenant, d);
            boolean hotExists = hotShards.contains(ShardId.records(tenant, d));
            boolean searchHot = hotExists
                    && !(entry.isPresent()
                            && entry.get().coveredHot() != null
                            && absorbed(entry.get(), metadata.of(ShardId.records(tenant, d))));
            out.add(new Day(d, entry, searchHot));
        }
        return out;
    }

    /** True when the hot shard is still as the entry's archive absorbed it. */
    static boolean absorbed(CatalogEntry entry, Optional<ShardMetadata> hot) {
        CatalogEntry.HotState s = entry.coveredHot();
        return s != null
                && hot.isPresent()
                && hot.get().docs() == s.docs()
                && Objects.equals(hot.get().updated(), s.updated());
    }
}
