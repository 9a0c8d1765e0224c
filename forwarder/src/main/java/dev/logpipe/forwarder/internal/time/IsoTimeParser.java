package dev.logpipe.forwarder.internal.time;

/**
 * RFC 3339 and the common ISO 8601 forms: {@code 2006-01-02T15:04:05}, a space or a lower-case {@code t}
 * instead of the {@code T}, an optional fraction after {@code .} or {@code ,} (up to nine digits count),
 * and an optional offset {@code Z}, {@code z}, {@code +07:00}, {@code +0700} or {@code +07}. Without an
 * offset the time is local to the configured zone; this covers Log4j's, Logback's and Python's
 * {@code 2006-01-02 15:04:05,000} too.
 */
final class IsoTimeParser implements TimeParser {
    private final LocalZone zone;

    IsoTimeParser(LocalZone zone) {
        this.zone = zone;
    }

    @Override
    public long parse(byte[] b, int off, int len) {
        int end = off + len;
        if (len < 19 || b[off + 4] != '-' || b[off + 7] != '-' || b[off + 13] != ':' || b[off + 16] != ':') {
            return NONE;
        }
        byte sep = b[off + 10];
        if (sep != 'T' && sep != 't' && sep != ' ') {
            return NONE;
        }
        int y = CivilTime.digits(b, off, 4);
        int mo = CivilTime.digits(b, off + 5, 2);
        int d = CivilTime.digits(b, off + 8, 2);
        int h = CivilTime.digits(b, off + 11, 2);
        int mi = CivilTime.digits(b, off + 14, 2);
        int s = CivilTime.digits(b, off + 17, 2);
        if (y < 0 || !CivilTime.validDate(y, mo, d) || !CivilTime.validTime(h, mi, s)) {
            return NONE;
        }
        int i = off + 19;
        long frac = CivilTime.fraction(b, i, end);
        if (frac < 0) {
            return NONE;
        }
        i += (int) (frac & 0xFF);
        long nanos = frac >>> 8;
        long local = CivilTime.localSecond(y, mo, d, h, mi, s);
        if (i == end) {
            return CivilTime.nanos(zone.epochSecond(local), nanos);
        }
        int offset = offsetSeconds(b, i, end);
        if (offset == Integer.MIN_VALUE) {
            return NONE;
        }
        return CivilTime.nanos(local - offset, nanos);
    }

    /** {@code Z}, {@code ±hh}, {@code ±hhmm} or {@code ±hh:mm} filling {@code b[i, end)}; MIN_VALUE otherwise. */
    static int offsetSeconds(byte[] b, int i, int end) {
        int n = end - i;
        if (n == 1 && (b[i] == 'Z' || b[i] == 'z')) {
            return 0;
        }
        if (b[i] != '+' && b[i] != '-') {
            return Integer.MIN_VALUE;
        }
        int sign = b[i] == '-' ? -1 : 1;
        int hh;
        int mm;
        if (n == 3) {
            hh = CivilTime.digits(b, i + 1, 2);
            mm = 0;
        } else if (n == 5) {
            hh = CivilTime.digits(b, i + 1, 2);
            mm = CivilTime.digits(b, i + 3, 2);
        } else if (n == 6 && b[i + 3] == ':') {
            hh = CivilTime.digits(b, i + 1, 2);
            mm = CivilTime.digits(b, i + 4, 2);
        } else {
            return Integer.MIN_VALUE;
        }
        if (hh < 0 || mm < 0 || hh > 18 || mm > 59) {
            return Integer.MIN_VALUE;
        }
        return sign * (hh * 3600 + mm * 60);
    }
}
