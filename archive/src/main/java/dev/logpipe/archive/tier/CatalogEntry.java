package dev.logpipe.archive.tier;

import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;

/**
 * One archived day of one tenant as the catalog records it: the archive object of its current generation, what it
 * holds, and whether a hot shard of the day still waits to be deleted because the archive already holds it.
 *
 * @param generation 1 for the first archive of the day, one more for each re-archive that absorbed late records
 * @param coveredHot the hot shard the archive absorbed, still to be deleted (null when none is pending): while its
 *                   metadata still shows this state, a planner searches the archive and not that hot shard
 */
public record CatalogEntry(
        String tenant,
        LocalDate day,
        int generation,
        String key,
        long records,
        long bytes,
        long sourceBytes,
        String digest,
        long minEventTimeMillis,
        long maxEventTimeMillis,
        Instant archivedAt,
        HotState coveredHot) {
    public CatalogEntry {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(archivedAt, "archivedAt");
        if (generation < 1) {
            throw new IllegalArgumentException("generation must be >= 1, was " + generation);
        }
    }

    /** A hot shard as its metadata showed it when it was read: its live documents and its last update. */
    public record HotState(long docs, Instant updated) {}

    public CatalogEntry withCoveredHot(HotState state) {
        return new CatalogEntry(
                tenant,
                day,
                generation,
                key,
                records,
                bytes,
                sourceBytes,
                digest,
                minEventTimeMillis,
                maxEventTimeMillis,
                archivedAt,
                state);
    }

    /** The object key of a day's archive of a generation: {@code records/<tenant dir>/<day>/g<generation>.lpa}. */
    public static String key(String tenant, LocalDate day, int generation) {
        return "records/" + dev.logpipe.index.shard.TenantDirectory.encode(tenant) + "/" + day + "/g" + generation
                + ".lpa";
    }
}
