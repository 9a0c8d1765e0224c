package dev.logpipe.archive.tier;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Objects;

/**
 * When a tenant's hot day is archived: once the day is more than {@code archive_after} days before today (UTC), and
 * at least {@code grace} has passed since the day ended (so nothing more is expected for it; later records go to the
 * hot tier and a later run absorbs them). {@code archive_after} is per tenant, default 7; 0 turns archiving off.
 */
public record ArchivePolicy(int defaultAfterDays, Map<String, Integer> tenantAfterDays, Duration grace) {
    public static final int DEFAULT_AFTER_DAYS = 7;

    public ArchivePolicy {
        tenantAfterDays = Map.copyOf(tenantAfterDays);
        Objects.requireNonNull(grace, "grace");
        if (defaultAfterDays < 0) {
            throw new IllegalArgumentException("archive_after must be >= 0, was " + defaultAfterDays);
        }
        tenantAfterDays.forEach((t, d) -> {
            if (d < 0) {
                throw new IllegalArgumentException("archive_after of tenant " + t + " must be >= 0, was " + d);
            }
        });
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must be >= 0, was " + grace);
        }
    }

    public int afterDays(String tenant) {
        return tenantAfterDays.getOrDefault(tenant, defaultAfterDays);
    }

    /** True when the tenant's hot day is due for the archive at {@code now}. */
    public boolean due(String tenant, LocalDate day, Instant now) {
        int after = afterDays(tenant);
        if (after == 0) {
            return false;
        }
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        return day.isBefore(today.minusDays(after)) && closed(day, now);
    }

    /** True once {@code grace} has passed since the day ended: nothing more is expected for it. */
    public boolean closed(LocalDate day, Instant now) {
        return !now.isBefore(closedAt(day));
    }

    /** When the day counts as closed. */
    public Instant closedAt(LocalDate day) {
        return day.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().plus(grace);
    }
}
