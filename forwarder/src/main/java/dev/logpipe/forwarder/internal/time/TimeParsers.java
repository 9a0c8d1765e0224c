package dev.logpipe.forwarder.internal.time;

import dev.logpipe.forwarder.config.TimeLayout;
import java.time.InstantSource;
import java.time.ZoneId;

/** The parser of each {@link TimeLayout}: the config names a layout, this builds its reader. */
public final class TimeParsers {
    private TimeParsers() {}

    /**
     * A new parser (parsers keep caches: one per thread). {@code pattern} is only read for {@link TimeLayout#PATTERN};
     * it must be a valid DateTimeFormatter pattern (checked at config load, see {@link TimeLayout#formatter}).
     */
    public static TimeParser of(TimeLayout layout, ZoneId zone, String pattern, InstantSource clock) {
        return switch (layout) {
            case RFC3339, LOG4J -> new IsoTimeParser(new LocalZone(zone));
            case COMMON_LOG -> new CommonLogTimeParser();
            case SYSLOG -> new SyslogTimeParser(new LocalZone(zone), clock);
            case EPOCH_S -> new EpochTimeParser(9);
            case EPOCH_MS -> new EpochTimeParser(6);
            case EPOCH_US -> new EpochTimeParser(3);
            case EPOCH_NS -> new EpochTimeParser(0);
            case PATTERN -> new PatternTimeParser(TimeLayout.formatter(pattern), zone);
        };
    }
}
