package dev.logpipe.forwarder.internal.time;

import java.time.InstantSource;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The timestamp layouts a transform can name ({@code transform.event_time.layout}); the parser is chosen
 * once, at config load, and each layout but {@link #PATTERN} is a hand-written fixed-layout parser.
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

    /**
     * A new parser (parsers keep caches: one per thread). {@code pattern} is only read for {@link #PATTERN};
     * it must be a valid DateTimeFormatter pattern (checked at config load, see {@link #formatter}).
     */
    public TimeParser newParser(ZoneId zone, String pattern, InstantSource clock) {
        return switch (this) {
            case RFC3339, LOG4J -> new IsoTimeParser(new LocalZone(zone));
            case COMMON_LOG -> new CommonLogTimeParser();
            case SYSLOG -> new SyslogTimeParser(new LocalZone(zone), clock);
            case EPOCH_S -> new EpochTimeParser(9);
            case EPOCH_MS -> new EpochTimeParser(6);
            case EPOCH_US -> new EpochTimeParser(3);
            case EPOCH_NS -> new EpochTimeParser(0);
            case PATTERN -> new PatternTimeParser(formatter(pattern), zone);
        };
    }

    /** The formatter of a pattern; an IllegalArgumentException names what is wrong with it. */
    public static DateTimeFormatter formatter(String pattern) {
        return DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
    }
}
