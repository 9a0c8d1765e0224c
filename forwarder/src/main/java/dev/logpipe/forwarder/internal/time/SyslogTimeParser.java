package dev.logpipe.forwarder.internal.time;

import java.time.InstantSource;

/**
 * The BSD syslog (RFC 3164) {@code Jan  2 15:04:05}: the day space-padded or zero-padded, an optional
 * fraction, local to the configured zone, and no year. The year is the one that puts the time at most
 * {@link #FUTURE_SLACK_SECONDS} after now (by the injected clock), the latest such: so on 1 January a line
 * stamped 31 December belongs to the year before, and on 31 December a line stamped 1 January (a writer
 * whose clock is a little ahead) to the year after.
 */
final class SyslogTimeParser implements TimeParser {
    static final long FUTURE_SLACK_SECONDS = 7 * 86400;
    private final LocalZone zone;
    private final InstantSource clock;

    SyslogTimeParser(LocalZone zone, InstantSource clock) {
        this.zone = zone;
        this.clock = clock;
    }

    @Override
    public long parse(byte[] b, int off, int len) {
        int end = off + len;
        if (len < 14 || b[off + 3] != ' ') {
            return NONE;
        }
        int mo = CivilTime.month(b, off);
        int i = off + 4;
        int d;
        if (b[i] == ' ') {
            d = CivilTime.digits(b, i + 1, 1);
            i += 2;
        } else if (b[i + 1] == ' ') {
            d = CivilTime.digits(b, i, 1);
            i += 1;
        } else {
            d = CivilTime.digits(b, i, 2);
            i += 2;
        }
        if (mo < 0 || d < 1 || end - i < 9 || b[i] != ' ' || b[i + 3] != ':' || b[i + 6] != ':') {
            return NONE;
        }
        int h = CivilTime.digits(b, i + 1, 2);
        int mi = CivilTime.digits(b, i + 4, 2);
        int s = CivilTime.digits(b, i + 7, 2);
        if (!CivilTime.validTime(h, mi, s)) {
            return NONE;
        }
        i += 9;
        long frac = CivilTime.fraction(b, i, end);
        if (frac < 0 || i + (int) (frac & 0xFF) != end) {
            return NONE;
        }
        long now = Math.floorDiv(clock.millis(), 1000);
        long year = CivilTime.yearOfEpochDay(Math.floorDiv(now, 86400));
        for (long y = year + 1; y >= year - 1; y--) {
            if (!CivilTime.validDate(y, mo, d)) {
                continue; // 29 February outside a leap year
            }
            long epoch = zone.epochSecond(CivilTime.localSecond(y, mo, d, h, mi, s));
            if (epoch <= now + FUTURE_SLACK_SECONDS) {
                return CivilTime.nanos(epoch, frac >>> 8);
            }
        }
        // 29 February of a year long past: the last leap year before now.
        for (long y = year - 2; y >= year - 8; y--) {
            if (CivilTime.validDate(y, mo, d)) {
                return CivilTime.nanos(zone.epochSecond(CivilTime.localSecond(y, mo, d, h, mi, s)), frac >>> 8);
            }
        }
        return NONE;
    }
}
