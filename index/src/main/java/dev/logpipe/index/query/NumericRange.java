package dev.logpipe.index.query;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * A range on a numeric structured field, its bounds taken exactly as written ({@code 99999999999999999999},
 * {@code 1e300}, {@code 0.5}) and turned into the closed range of the values a field of each kind can hold, the one
 * copy of this arithmetic every engine builds its ranges from: a whole-number bound past the largest long leaves
 * nothing above it and everything below it (never a bound that wraps), and a decimal bound becomes the nearest double on
 * the right side of it. A null bound is open. Empty: no value of that kind can be in the range.
 */
public final class NumericRange {
    private static final BigDecimal MIN_LONG = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal MAX_LONG = BigDecimal.valueOf(Long.MAX_VALUE);

    private NumericRange() {}

    /** The whole numbers [lo, hi] a range holds (lo may be above hi: nothing). */
    public record Whole(long lo, long hi) {}

    /** The doubles [lo, hi] a range holds (lo may be above hi: nothing). */
    public record Decimal(double lo, double hi) {}

    public static Optional<Whole> whole(BigDecimal lo, boolean loInclusive, BigDecimal hi, boolean hiInclusive) {
        long l = Long.MIN_VALUE;
        if (lo != null) {
            if (lo.compareTo(MAX_LONG) > 0 || (!loInclusive && lo.compareTo(MAX_LONG) == 0)) {
                return Optional.empty(); // the lower bound is past the largest whole number
            }
            if (lo.compareTo(MIN_LONG) >= 0) { // compared first: a bound like 1e999999999 is never rounded
                long whole = round(lo, loInclusive ? RoundingMode.CEILING : RoundingMode.FLOOR);
                l = loInclusive ? whole : whole + 1;
            }
        }
        long h = Long.MAX_VALUE;
        if (hi != null) {
            if (hi.compareTo(MIN_LONG) < 0 || (!hiInclusive && hi.compareTo(MIN_LONG) == 0)) {
                return Optional.empty(); // the upper bound is before the smallest whole number
            }
            if (hi.compareTo(MAX_LONG) <= 0) {
                long whole = round(hi, hiInclusive ? RoundingMode.FLOOR : RoundingMode.CEILING);
                h = hiInclusive ? whole : whole - 1;
            }
        }
        return Optional.of(new Whole(l, h));
    }

    public static Optional<Decimal> decimal(BigDecimal lo, boolean loInclusive, BigDecimal hi, boolean hiInclusive) {
        double l = lo == null ? Double.NEGATIVE_INFINITY : lowest(lo, loInclusive);
        double h = hi == null ? Double.POSITIVE_INFINITY : highest(hi, hiInclusive);
        if (l == Double.POSITIVE_INFINITY || h == Double.NEGATIVE_INFINITY) {
            return Optional.empty(); // the bound is past the largest double
        }
        return Optional.of(new Decimal(l, h));
    }

    /**
     * {@code x} (within a long's range) rounded to a whole number by {@code mode} ({@code CEILING} or {@code FLOOR}).
     * Below one in magnitude it is decided by the sign alone: {@code setScale} would compute {@code 10^scale}, and a
     * bound like {@code 1e-300000000} made that minutes of CPU. Otherwise the scale is below the precision.
     */
    private static long round(BigDecimal x, RoundingMode mode) {
        if (x.signum() == 0) {
            return 0;
        }
        if (x.precision() - x.scale() <= 0) { // 0 < |x| < 1
            if (mode == RoundingMode.CEILING) {
                return x.signum() > 0 ? 1 : 0;
            }
            return x.signum() > 0 ? 0 : -1;
        }
        return x.setScale(0, mode).longValueExact();
    }

    /** The smallest double above {@code x} (or at it, inclusive); -0.0 for zero, as -0.0 == 0. */
    static double lowest(BigDecimal x, boolean inclusive) {
        double d = x.doubleValue();
        if (Double.isInfinite(d)) {
            return d;
        }
        int c = new BigDecimal(d).compareTo(x);
        double v = (inclusive ? c >= 0 : c > 0) ? d : Math.nextUp(d);
        return v == 0 ? -0.0 : v;
    }

    /** The largest double below {@code x} (or at it, inclusive); 0.0 for zero. */
    static double highest(BigDecimal x, boolean inclusive) {
        double d = x.doubleValue();
        if (Double.isInfinite(d)) {
            return d;
        }
        int c = new BigDecimal(d).compareTo(x);
        double v = (inclusive ? c <= 0 : c < 0) ? d : Math.nextDown(d);
        return v == 0 ? 0.0 : v;
    }
}
