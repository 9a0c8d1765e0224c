package dev.logpipe.forwarder.internal.time;

import dev.logpipe.record.JsonBuffer;
import java.time.LocalDate;

/**
 * Writes epoch nanoseconds as the record's {@code event_time}: RFC 3339 in UTC with an upper-case T and Z,
 * three fraction digits when nothing is below the millisecond and nine otherwise (the form
 * {@code RecordCodec} writes). The text up to the fraction of the last second written is cached. Not thread-safe.
 */
public final class EventTimeWriter {
    private final byte[] date = new byte[11];
    private long day = Long.MIN_VALUE;
    /** {@code "2006-01-02T15:04:05.} of the last second written: consecutive records mostly share it. */
    private final byte[] head = new byte[21];

    private long headSecond = Long.MIN_VALUE;

    /** Appends the quoted timestamp. */
    public void write(long epochNanos, JsonBuffer out) {
        long second = Math.floorDiv(epochNanos, CivilTime.NANOS_PER_SECOND);
        int nanos = (int) Math.floorMod(epochNanos, CivilTime.NANOS_PER_SECOND);
        if (second != headSecond) {
            fillHead(second);
        }
        out.ensureCapacity(34);
        byte[] a = out.array();
        int p = out.size();
        System.arraycopy(head, 0, a, p, 21);
        p += 21;
        if (nanos % 1_000_000 == 0) {
            int v = nanos / 1_000_000;
            a[p] = (byte) ('0' + v / 100);
            a[p + 1] = (byte) ('0' + v / 10 % 10);
            a[p + 2] = (byte) ('0' + v % 10);
            p += 3;
        } else {
            int v = nanos;
            for (int i = 8; i >= 0; i--) {
                a[p + i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            p += 9;
        }
        a[p++] = 'Z';
        a[p++] = '"';
        out.advance(p - out.size());
    }

    private void fillHead(long second) {
        long d = Math.floorDiv(second, 86400);
        if (d != day) {
            fillDate(d);
        }
        int secOfDay = (int) (second - d * 86400);
        head[0] = '"';
        System.arraycopy(date, 0, head, 1, 11);
        two(head, 12, secOfDay / 3600);
        head[14] = ':';
        two(head, 15, secOfDay / 60 % 60);
        head[17] = ':';
        two(head, 18, secOfDay % 60);
        head[20] = '.';
        headSecond = second;
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
