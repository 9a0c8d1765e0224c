package dev.logpipe.forwarder.config;

import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Locale;

/**
 * The timestamp layouts a transform can name ({@code transform.event_time.layout}), chosen once, at config load.
 * The forwarder reads each layout but {@link #PATTERN} with a hand-written fixed-layout parser; {@link #PATTERN}'s
 * reading is here ({@link #readPattern}), so the config check and the parser are one rule.
 */
public enum TimeLayout {
    /** RFC 3339 / ISO 8601, with or without offset and fraction: {@code 2006-01-02T15:04:05.000Z}. */
    RFC3339("rfc3339"),
    /** Log4j, Logback, Python logging: {@code 2006-01-02 15:04:05,000} (read by the RFC 3339 parser). */
    LOG4J("log4j"),
    /** The common log format: {@code 02/Jan/2006:15:04:05 -0700}. */
    COMMON_LOG("common_log"),
    /** BSD syslog: {@code Jan  2 15:04:05}, the year inferred from the clock. */
    SYSLOG("syslog"),
    EPOCH_S("epoch_s"),
    EPOCH_MS("epoch_ms"),
    EPOCH_US("epoch_us"),
    EPOCH_NS("epoch_ns"),
    /** A Java DateTimeFormatter pattern ({@code transform.event_time.pattern}). */
    PATTERN("pattern");

    private final String configName;

    TimeLayout(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /** The layout a config value names, or null. */
    public static TimeLayout named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals("iso8601")) {
            return RFC3339;
        }
        for (TimeLayout l : values()) {
            if (l.configName.equals(n)) {
                return l;
            }
        }
        return null;
    }

    /** The formatter of a pattern; an IllegalArgumentException names what is wrong with it. */
    public static DateTimeFormatter formatter(String pattern) {
        return DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
    }

    /**
     * The instant {@code text} names in a {@link #PATTERN} layout, or null when it is not a whole timestamp of it (text
     * left over, or fields that parse but do not resolve, such as 31 February). A time without an offset or zone in
     * the text is local to {@code zone}. Thread-safe; java.time objects per call.
     */
    public static Instant readPattern(DateTimeFormatter formatter, CharSequence text, ZoneId zone) {
        ParsePosition pos = new ParsePosition(0);
        if (formatter.parseUnresolved(text, pos) == null || pos.getIndex() != text.length()) {
            return null;
        }
        try {
            TemporalAccessor t = formatter.parse(text);
            if (t.isSupported(ChronoField.INSTANT_SECONDS)) {
                return Instant.from(t);
            }
            return ZonedDateTime.ofLocal(LocalDateTime.from(t), zone, null).toInstant();
        } catch (DateTimeException e) {
            return null; // rare, not the common case
        }
    }
}
