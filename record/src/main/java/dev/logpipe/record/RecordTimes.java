package dev.logpipe.record;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * The record's time layout, both ways. Writing: {@link RecordCodec}'s one form, {@code 2026-12-01T08:00:00.123Z}, or
 * nine fraction digits when the time is not whole milliseconds ({@link #writeUtc}). Reading: a fast path for the
 * RFC 3339 form nearly every record carries, UTC with seconds and an optional fraction ({@code t}, a space and {@code
 * z} too). It answers the same instant as the general parser, or null for anything else (an offset, no seconds, an
 * invalid date): then the caller parses with java.time, which also words the error.
 */
final class RecordTimes {
    /** The longest time {@link #writeUtc} writes: {@code yyyy-MM-ddTHH:mm:ss.nnnnnnnnnZ}. */
    static final int MAX_UTC_LENGTH = 30;

    private static final long SECONDS_PER_DAY = 86_400;
    /** Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
    private static final long DAYS_0000_03_01_TO_EPOCH = 719_468;

    private static final long DAYS_PER_400_YEARS = 146_097;

    private RecordTimes() {}

    /**
     * Writes {@code t} in UTC as ASCII at {@code dst[pos]} (at most {@link #MAX_UTC_LENGTH} bytes) and returns the
     * position after it: the year in four digits (a LogRecord holds years 0000 to 9999, {@code
     * RecordRules.timeInRange}), milliseconds when the nanos are whole milliseconds, else nanoseconds. No string and
     * no calendar object is made: the date comes from the epoch day by the civil-from-days arithmetic (H. Hinnant).
     */
    static int writeUtc(Instant t, byte[] dst, int pos) {
        long seconds = t.getEpochSecond();
        long epochDay = Math.floorDiv(seconds, SECONDS_PER_DAY);
        int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
        long z = epochDay + DAYS_0000_03_01_TO_EPOCH;
        long era = Math.floorDiv(z, DAYS_PER_400_YEARS);
        int dayOfEra = (int) (z - era * DAYS_PER_400_YEARS);
        int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        int shiftedMonth = (5 * dayOfYear + 2) / 153; // 0 = March
        int day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1;
        int month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
        int year = (int) (yearOfEra + era * 400) + (month <= 2 ? 1 : 0);
        pos = digits(dst, pos, year, 4);
        dst[pos++] = '-';
        pos = digits(dst, pos, month, 2);
        dst[pos++] = '-';
        pos = digits(dst, pos, day, 2);
        dst[pos++] = 'T';
        pos = digits(dst, pos, secondOfDay / 3600, 2);
        dst[pos++] = ':';
        pos = digits(dst, pos, secondOfDay / 60 % 60, 2);
        dst[pos++] = ':';
        pos = digits(dst, pos, secondOfDay % 60, 2);
        dst[pos++] = '.';
        int nanos = t.getNano();
        pos = nanos % 1_000_000 == 0 ? digits(dst, pos, nanos / 1_000_000, 3) : digits(dst, pos, nanos, 9);
        dst[pos++] = 'Z';
        return pos;
    }

    /** The same time as a string. */
    static String formatUtc(Instant t) {
        byte[] b = new byte[MAX_UTC_LENGTH];
        return new String(b, 0, writeUtc(t, b, 0), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** {@code v} in exactly {@code width} decimal digits, its lowest ones (a year past 9999 loses its first digit). */
    private static int digits(byte[] dst, int pos, int v, int width) {
        for (int i = width - 1; i >= 0; i--) {
            dst[pos + i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return pos + width;
    }

    /** The instant of a canonical UTC time, or null when {@code s} is not one (it may still be valid RFC 3339). */
    static Instant parseUtc(String s) {
        int n = s.length();
        if (n < 20 || n > 30) {
            return null;
        }
        char z = s.charAt(n - 1);
        char sep = s.charAt(10);
        if ((z != 'Z' && z != 'z')
                || (sep != 'T' && sep != 't' && sep != ' ')
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59) {
            return null;
        }
        if (second < 0 || second > 59) {
            return null;
        }
        int nanos = 0;
        if (n > 20) {
            int fraction = n - 21; // digits between '.' and 'Z'
            if (s.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                return null;
            }
            nanos = digits(s, 20, fraction);
            if (nanos < 0) {
                return null;
            }
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return null; // the general parser words the error
        }
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
    }

    /** The decimal value of {@code count} ASCII digits at {@code at}, or -1 when one is not a digit. */
    private static int digits(String s, int at, int count) {
        int v = 0;
        for (int i = at; i < at + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
