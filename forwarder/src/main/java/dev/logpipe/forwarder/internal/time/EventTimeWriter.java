package dev.logpipe.forwarder.internal.time;

import dev.logpipe.record.JsonBuffer;
import java.time.LocalDate;

/**
 * Writes epoch nanoseconds as the record's {@code event_time}: RFC 3339 in UTC with an upper-case T and Z,
 * three fraction digits when nothing is below the millisecond and nine otherwise (the form
 * {@code RecordCodec} writes). The date part of the last day written is cached. Not thread-safe.
 */
public final class EventTimeWriter {
    private final byte[] date = new byte[11];
    private long day = Long.MIN_VALUE;

    /** Appends the quoted timestamp. */
    public void write(long epochNanos, JsonBuffer out) {
        long second = Math.floorDiv(epochNanos, CivilTime.NANOS_PER_SECOND);
        int nanos = (int) Math.floorMod(epochNanos, CivilTime.NANOS_PER_SECOND);
        long d = Math.floorDiv(second, 86400);
        if (d != day) {
            fillDate(d);
        }
        int secOfDay = (int) (second - d * 86400);
        boolean millis = nanos % 1_000_000 == 0;
        out.ensureCapacity(34);
        byte[] a = out.array();
        int p = out.size();
        a[p++] = '"';
        System.arraycopy(date, 0, a, p, 11);
        p += 11;
        p = two(a, p, secOfDay / 3600);
        a[p++] = ':';
        p = two(a, p, secOfDay / 60 % 60);
        a[p++] = ':';
        p = two(a, p, secOfDay % 60);
        a[p++] = '.';
        int v = millis ? nanos / 1_000_000 : nanos;
        int width = millis ? 3 : 9;
        for (int i = width - 1; i >= 0; i--) {
            a[p + i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        p += width;
        a[p++] = 'Z';
        a[p++] = '"';
        out.advance(p - out.size());
    }

    private void fillDate(long d) {
        LocalDate ld = LocalDate.ofEpochDay(d);
        int y = ld.getYear();
        for (int i = 3; i >= 0; i--) {
            date[i] = (byte) ('0' + y % 10);
            y /= 10;
        }
        date[4] = '-';
        two(date, 5, ld.getMonthValue());
        date[7] = '-';
        two(date, 8, ld.getDayOfMonth());
        date[10] = 'T';
        day = d;
    }

    private static int two(byte[] a, int p, int v) {
        a[p] = (byte) ('0' + v / 10);
        a[p + 1] = (byte) ('0' + v % 10);
        return p + 2;
    }
}
