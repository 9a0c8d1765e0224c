package dev.logpipe.forwarder.internal.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * RFC 3339 and the common ISO 8601 forms: {@code 2006-01-02T15:04:05}, a space or a lower-case {@code t}
 * instead of the {@code T}, an optional fraction after {@code .} or {@code ,} (up to nine digits count),
 * and an optional offset {@code Z}, {@code z}, {@code +07:00}, {@code +0700} or {@code +07}. Without an
 * offset the time is local to the configured zone; this covers Log4j's, Logback's and Python's
 * {@code 2006-01-02 15:04:05,000} too.
 */
final class IsoTimeParser implements TimeParser {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final LocalZone zone;
    /**
     * The first 16 bytes ({@code 2006-01-02T15:04}) of the last valid timestamp, as two words, and that minute in
     * local seconds. A file's lines repeat their minute, so the date and hour are parsed and checked once a minute.
     * Before the first timestamp both words are 0, which no timestamp matches: its fifth byte is a {@code -}.
     */
    private long minuteWord0;

    private long minuteWord1;
    private long minuteLocal;

    IsoTimeParser(LocalZone zone) {
        this.zone = zone;
    }

    @Override
    public long parse(byte[] b, int off, int len) {
        int end = off + len;
        if (len < 19 || b[off + 4] != '-' || b[off + 7] != '-' || b[off + 13] != ':' || b[off + 16] != ':') {
            return NONE;
        }
        long w0 = (long) LONGS.get(b, off);
        long w1 = (long) LONGS.get(b, off + 8);
        long minute;
        if (w0 == minuteWord0 && w1 == minuteWord1) {
            minute = minuteLocal; // the bytes that were checked for the last timestamp
        } else {
            minute = minute(b, off);
            if (minute == Long.MIN_VALUE) {
                return NONE;
            }
            minuteWord0 = w0;
            minuteWord1 = w1;
            minuteLocal = minute;
        }
        int s = CivilTime.digits(b, off + 17, 2);
        if (s < 0 || s > 59) {
            return NONE;
        }
        int i = off + 19;
        long frac = CivilTime.fraction(b, i, end);
        if (frac < 0) {
            return NONE;
        }
        i += (int) (frac & 0xFF);
        long nanos = frac >>> 8;
        long local = minute + s;
        if (i == end) {
            return CivilTime.nanos(zone.epochSecond(local), nanos);
        }
        int offset = offsetSeconds(b, i, end);
        if (offset == Integer.MIN_VALUE) {
            return NONE;
        }
        return CivilTime.nanos(local - offset, nanos);
    }

    /** Local seconds of the minute in {@code b[off, off + 16)} ({@code 2006-01-02T15:04}), or MIN_VALUE. */
    private static long minute(byte[] b, int off) {
        byte sep = b[off + 10];
        if (sep != 'T' && sep != 't' && sep != ' ') {
            return Long.MIN_VALUE;
        }
        int y = CivilTime.digits(b, off, 4);
        int mo = CivilTime.digits(b, off + 5, 2);
        int d = CivilTime.digits(b, off + 8, 2);
        int h = CivilTime.digits(b, off + 11, 2);
        int mi = CivilTime.digits(b, off + 14, 2);
        if (y < 0 || !CivilTime.validDate(y, mo, d) || !CivilTime.validTime(h, mi, 0)) {
            return Long.MIN_VALUE;
        }
        return CivilTime.localSecond(y, mo, d, h, mi, 0);
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
