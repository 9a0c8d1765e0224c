package dev.logpipe.index.query;

import dev.logpipe.index.schema.Fields;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;
import org.apache.lucene.queryparser.classic.ParseException;

/**
 * How a range's bounds are read, the one copy of the rules both the parse (which refuses a bound that cannot be read)
 * and an engine (which builds the range) follow: times on {@code event_time}/{@code observed_time} are epoch
 * milliseconds or RFC 3339, numeric bounds on {@code fields.*} are exact decimals of a bounded exponent.
 */
public final class RangeBounds {
    /** The largest scale, either way, of a numeric bound: far past a double's 1e-324 and 1e308, like Jackson's cap. */
    public static final int MAX_SCALE = 10_000;

    private RangeBounds() {}

    /** Whether {@code field} holds times ({@code event_time}, {@code observed_time}). */
    public static boolean time(String field) {
        return field.equals(Fields.EVENT_TIME) || field.equals(Fields.OBSERVED_TIME);
    }

    /**
     * A time bound in epoch milliseconds; {@code *} is {@link Long#MIN_VALUE}.
     *
     * @throws ParseException the bound is neither {@code *}, epoch milliseconds nor RFC 3339
     */
    public static long millis(String s) throws ParseException {
        OptionalLong t = timeBound(s);
        if (t.isEmpty()) {
            throw new ParseException("a time must be epoch milliseconds or RFC 3339, was \"" + s + "\"");
        }
        return t.getAsLong();
    }

    /** As {@link #millis}, empty for a bound that is neither: for an engine, after the parse refused those. */
    public static OptionalLong timeBound(String s) {
        if (s.equals("*")) {
            return OptionalLong.of(Long.MIN_VALUE);
        }
        try {
            return OptionalLong.of(Long.parseLong(s));
        } catch (NumberFormatException e) {
            try {
                return OptionalLong.of(Instant.parse(s.toUpperCase(Locale.ROOT)).toEpochMilli());
            } catch (RuntimeException e2) {
                return OptionalLong.empty();
            }
        }
    }

    /**
     * A bound written as a decimal number (exactly, however large), or null for {@code *}, none, and anything else (a
     * keyword bound).
     *
     * @throws IllegalArgumentException the number's scale is past {@link #MAX_SCALE} either way ({@code 1e-300000000}):
     *     no field holds such a value, and exact arithmetic on it costs time and memory without bound
     */
    public static BigDecimal number(String field, String s) {
        if (s == null || s.equals("*")) {
            return null;
        }
        BigDecimal n;
        try {
            n = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
        if (Math.abs((long) n.scale()) > MAX_SCALE) {
            throw new IllegalArgumentException(
                    field + ": a numeric bound's exponent must be within ±" + MAX_SCALE + ", was " + s);
        }
        return n;
    }
}
