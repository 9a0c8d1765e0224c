package dev.logpipe.record;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * A fast path for the RFC 3339 form nearly every record carries, the one {@link RecordCodec} writes: UTC with seconds
 * and an optional fraction, {@code 2026-12-01T08:00:00.123Z} ({@code t}, a space and {@code z} too). It answers the
 * same instant as the general parser, or null for anything else (an offset, no seconds, an invalid date): then the
 * caller parses with java.time, which also words the error.
 */
final class RecordTimes {
    private RecordTimes() {}

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
