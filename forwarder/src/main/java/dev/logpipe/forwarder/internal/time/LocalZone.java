package dev.logpipe.forwarder.internal.time;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneRules;

/**
 * Turns a local date-time into an instant in one time zone, like {@link ZonedDateTime#ofLocal} with no
 * preferred offset: a time in the autumn overlap is its earlier (summer-time) occurrence, a time in the
 * spring gap is moved forward by the length of the gap. The offset of the last local hour without a
 * transition is cached, so the common case costs no allocation. Not thread-safe.
 */
final class LocalZone {
    private final ZoneId zone;
    private final ZoneRules rules;
    private final boolean fixed;
    private final int fixedOffset;
    private long cachedHour = Long.MIN_VALUE;
    private int cachedOffset;

    LocalZone(ZoneId zone) {
        this.zone = zone;
        this.rules = zone.getRules();
        this.fixed = rules.isFixedOffset();
        this.fixedOffset = fixed ? rules.getOffset(Instant.EPOCH).getTotalSeconds() : 0;
    }

    ZoneId zone() {
        return zone;
    }

    /** Epoch seconds of the local date-time given as seconds since 1970-01-01T00:00 local. */
    long epochSecond(long localSecond) {
        if (fixed) {
            return localSecond - fixedOffset;
        }
        long hour = Math.floorDiv(localSecond, 3600);
        if (hour == cachedHour) {
            return localSecond - cachedOffset;
        }
        LocalDateTime local = LocalDateTime.ofEpochSecond(localSecond, 0, ZoneOffset.UTC);
        long epoch = ZonedDateTime.ofLocal(local, zone, null).toEpochSecond();
        LocalDateTime first = LocalDateTime.ofEpochSecond(hour * 3600, 0, ZoneOffset.UTC);
        LocalDateTime last = first.plusSeconds(3599);
        var a = rules.getValidOffsets(first);
        var b = rules.getValidOffsets(last);
        if (a.size() == 1 && b.size() == 1 && a.get(0).equals(b.get(0))) {
            cachedHour = hour;
            cachedOffset = a.get(0).getTotalSeconds();
        }
        return epoch;
    }
}
