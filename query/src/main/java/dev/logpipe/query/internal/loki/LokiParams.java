package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.http.Params;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;

/** Loki's request parameters: times as Unix nanoseconds, fractional Unix seconds or RFC 3339; steps as durations or seconds. */
final class LokiParams {
    private LokiParams() {}

    /** A time parameter in epoch nanoseconds, or {@code fallback} when absent. */
    static long nanos(Params p, String name, long fallback) {
        String v = p.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        String t = v.strip();
        try {
            if (t.matches("-?\\d{1,19}")) {
                long n = Long.parseLong(t);
                return t.length() <= 10 ? Math.multiplyExact(n, 1_000_000_000L) : n; // Unix seconds, or nanoseconds
            }
            if (t.matches("-?\\d{1,12}\\.\\d{1,9}")) {
                return new BigDecimal(t).movePointRight(9).longValueExact();
            }
            Instant i = OffsetDateTime.parse(t).toInstant();
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
        } catch (ArithmeticException | DateTimeException | NumberFormatException e) {
            throw Params.bad(
                    name + ": must be Unix nanoseconds, Unix seconds or RFC 3339, was \"" + abbreviate(v) + "\"");
        }
    }

    /** The step in milliseconds: a duration ({@code 15s}, {@code 500ms}) or a number of seconds. */
    static long stepMillis(Params p, long fallback) {
        String v = p.get("step");
        if (v == null || v.isBlank()) {
            return fallback;
        }
        String t = v.strip();
        Long ms = Durations.millis(t);
        if (ms == null && t.matches("\\d{1,9}(\\.\\d{1,9})?")) {
            ms = (long) (Double.parseDouble(t) * 1000);
        }
        if (ms == null || ms < 1) {
            throw Params.bad(
                    "step: must be a positive duration (15s, 500ms) or seconds, was \"" + abbreviate(v) + "\"");
        }
        return ms;
    }

    static boolean forward(Params p) {
        String d = p.get("direction", "backward");
        if (d.equalsIgnoreCase("backward")) {
            return false;
        }
        if (d.equalsIgnoreCase("forward")) {
            return true;
        }
        throw Params.bad("direction: must be backward or forward, was \"" + abbreviate(d) + "\"");
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
