package dev.logpipe.query.internal.plan;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A resolved time range [from, to) in epoch milliseconds, and the parser of the {@code from}/{@code to} parameters:
 * RFC 3339 ({@code 2026-12-01T10:00:00Z}, offsets allowed) or relative to now ({@code now}, {@code now-15m},
 * {@code now-2h}, {@code now-7d}, {@code now+1h}).
 */
public record TimeRange(long fromMillis, long toMillis) {
    private static final Pattern RELATIVE = Pattern.compile("now(?:([+-])(\\d{1,9})(ms|s|m|h|d|w))?");

    public TimeRange {
        if (fromMillis > toMillis) {
            throw new IllegalArgumentException("from must not be after to");
        }
    }

    public Duration length() {
        return Duration.ofMillis(toMillis - fromMillis);
    }

    /**
     * @param name the parameter's name, for the message
     * @throws IllegalArgumentException the text is neither RFC 3339 nor a relative time
     */
    public static Instant parse(String name, String text, Instant now) {
        String s = text.trim();
        Matcher m = RELATIVE.matcher(s);
        if (m.matches()) {
            if (m.group(1) == null) {
                return now;
            }
            long n = Long.parseLong(m.group(2));
            Duration d = switch (m.group(3)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> Duration.ofDays(7 * n);
            };
            if (d.compareTo(Duration.ofDays(365L * 100)) > 0) {
                throw new IllegalArgumentException(name + ": at most 100 years from now, was \"" + text + "\"");
            }
            return m.group(1).equals("-") ? now.minus(d) : now.plus(d);
        }
        try {
            Instant t = OffsetDateTime.parse(s).toInstant();
            if (t.getEpochSecond() < -62135596800L || t.getEpochSecond() > 253402300799L) {
                throw new IllegalArgumentException(name + ": must be between years 1 and 9999, was \"" + text + "\"");
            }
            return t;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + ": must be RFC 3339 (2026-12-01T10:00:00Z) or relative (now, "
                    + "now-15m, now-2h, now-7d), was \"" + abbreviate(text) + "\"");
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
