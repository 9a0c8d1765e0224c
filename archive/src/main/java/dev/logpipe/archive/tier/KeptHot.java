package dev.logpipe.archive.tier;

import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;

/**
 * A day an operator restored into the hot tier (docs/archive.md#admin-api-and-cli): the schedule does not archive it
 * again before {@code until}. While the catalog still has an archive of the day, its restore is under way (or was cut
 * short by a crash and resumes at the next start).
 */
public record KeptHot(String tenant, LocalDate day, Instant until) {
    public KeptHot {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(until, "until");
    }

    public boolean keeps(Instant now) {
        return now.isBefore(until);
    }
}
