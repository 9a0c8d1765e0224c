package dev.logpipe.forwarder.internal.time;

/** Proleptic Gregorian calendar arithmetic without java.time objects (the parsers' hot path). */
final class CivilTime {
    static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int[] DAYS_IN_MONTH = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    private CivilTime() {}

    static boolean isLeap(long y) {
        return (y & 3) == 0 && (y % 100 != 0 || y % 400 == 0);
    }

    /** Whether (y, m, d) is a real date; m is 1-12. */
    static boolean validDate(long y, int m, int d) {
        if (m < 1 || m > 12 || d < 1) {
            return false;
        }
        int max = m == 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1];
        return d <= max;
    }

    static boolean validTime(int h, int min, int s) {
        return h >= 0 && h <= 23 && min >= 0 && min <= 59 && s >= 0 && s <= 59;
    }

    /** Days since 1970-01-01 of a valid date (H. Hinnant's days_from_civil). */
    static long epochDay(long y, int m, int d) {
        y -= m <= 2 ? 1 : 0;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }

    /** The year of a day since 1970-01-01 (H. Hinnant's civil_from_days, year only). */
    static long yearOfEpochDay(long z) {
        z += 719468;
        long era = Math.floorDiv(z, 146097);
        long doe = z - era * 146097;
        long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long m = mp + (mp < 10 ? 3 : -9);
        return yoe + era * 400 + (m <= 2 ? 1 : 0);
    }

    /** Seconds since the epoch of a local date-time read as if it were UTC. */
    static long localSecond(long y, int m, int d, int h, int min, int s) {
        return epochDay(y, m, d) * 86400 + h * 3600L + min * 60L + s;
    }

    /** Value of {@code n} decimal digits at {@code b[i]}, or -1 if one of them is not a digit. */
    static int digits(byte[] b, int i, int n) {
        int v = 0;
        for (int k = 0; k < n; k++) {
            int c = b[i + k] - '0';
            if (c < 0 || c > 9) {
                return -1;
            }
            v = v * 10 + c;
        }
        return v;
    }

    /** Month 1-12 of an English three-letter abbreviation at {@code b[i]} (any case), or -1. */
    static int month(byte[] b, int i) {
        int c0 = b[i] | 0x20;
        int c1 = b[i + 1] | 0x20;
        int c2 = b[i + 2] | 0x20;
        int key = (c0 << 16) | (c1 << 8) | c2;
        return switch (key) {
            case ('j' << 16) | ('a' << 8) | 'n' -> 1;
            case ('f' << 16) | ('e' << 8) | 'b' -> 2;
            case ('m' << 16) | ('a' << 8) | 'r' -> 3;
            case ('a' << 16) | ('p' << 8) | 'r' -> 4;
            case ('m' << 16) | ('a' << 8) | 'y' -> 5;
            case ('j' << 16) | ('u' << 8) | 'n' -> 6;
            case ('j' << 16) | ('u' << 8) | 'l' -> 7;
            case ('a' << 16) | ('u' << 8) | 'g' -> 8;
            case ('s' << 16) | ('e' << 8) | 'p' -> 9;
            case ('o' << 16) | ('c' << 8) | 't' -> 10;
            case ('n' << 16) | ('o' << 8) | 'v' -> 11;
            case ('d' << 16) | ('e' << 8) | 'c' -> 12;
            default -> -1;
        };
    }

    /**
     * Reads an optional fraction ({@code .} or {@code ,} then digits) at {@code b[i]}; digits past the ninth are
     * ignored. Returns {@code (nanos << 8) | consumed}, or -1 if a separator has no digit after it.
     */
    static long fraction(byte[] b, int i, int end) {
        if (i >= end || (b[i] != '.' && b[i] != ',')) {
            return 0;
        }
        if (i + 4 <= end && (i + 4 == end || b[i + 4] < '0' || b[i + 4] > '9')) { // the usual: milliseconds
            int d1 = b[i + 1] - '0';
            int d2 = b[i + 2] - '0';
            int d3 = b[i + 3] - '0';
            if ((d1 | d2 | d3) >= 0 && d1 <= 9 && d2 <= 9 && d3 <= 9) {
                return ((d1 * 100 + d2 * 10 + d3) * 1_000_000L << 8) | 4;
            }
        }
        int j = i + 1;
        long nanos = 0;
        int n = 0;
        while (j < end && b[j] >= '0' && b[j] <= '9') {
            if (n < 9) {
                nanos = nanos * 10 + (b[j] - '0');
                n++;
            }
            j++;
            if (j - i > 200) {
                return -1;
            }
        }
        if (j == i + 1) {
            return -1;
        }
        for (; n < 9; n++) {
            nanos *= 10;
        }
        return (nanos << 8) | (j - i);
    }

    /** Epoch nanoseconds, or {@link TimeParser#NONE} when the instant does not fit a long (years 1678-2262). */
    static long nanos(long epochSecond, long nanoOfSecond) {
        if (epochSecond > 9_223_372_035L || epochSecond < -9_223_372_035L) {
            return TimeParser.NONE;
        }
        return epochSecond * NANOS_PER_SECOND + nanoOfSecond;
    }
}
