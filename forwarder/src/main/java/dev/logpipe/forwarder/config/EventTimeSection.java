package dev.logpipe.forwarder.config;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.forwarder.config.ForwarderConfig.EventTime;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code transform.event_time}: the field, the layout (a {@link TimeLayout}), the zone, and for {@code layout:
 * pattern} a DateTimeFormatter pattern checked to name a whole date and time. Part of {@link ConfigLoader}.
 */
final class EventTimeSection {
    private EventTimeSection() {}

    static EventTime read(ConfigNode n) throws ConfigException {
        String field = n.string("field", null);
        String layoutName = n.string("layout", "rfc3339");
        String zoneName = n.string("zone", "UTC");
        String pattern = n.string("pattern", null);
        n.rejectUnknownKeys();
        if (field != null && field.isBlank()) {
            throw new ConfigException(n.keyPath("field") + ": must not be empty");
        }
        TimeLayout layout = TimeLayout.named(layoutName.trim());
        if (layout == null) {
            List<String> names = new ArrayList<>();
            for (TimeLayout l : TimeLayout.values()) {
                names.add(l.configName());
            }
            throw new ConfigException(n.keyPath("layout") + ": must be one of " + String.join(", ", names) + ", was \""
                    + layoutName + "\"");
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(zoneName.trim());
        } catch (DateTimeException e) {
            throw new ConfigException(n.keyPath("zone") + ": not a time zone (use a region like Europe/Berlin, UTC or "
                    + "an offset like +02:00), was \"" + zoneName + "\"");
        }
        if (layout == TimeLayout.PATTERN) {
            if (pattern == null || pattern.isBlank()) {
                throw new ConfigException(
                        n.keyPath("pattern") + ": is required when " + n.keyPath("layout") + " is pattern");
            }
            try {
                DateTimeFormatter f = TimeLayout.formatter(pattern);
                String sample = f.format(ZonedDateTime.of(2026, 12, 1, 8, 0, 0, 0, zone));
                if (TimeLayout.readPattern(f, sample, zone) == null) {
                    throw new ConfigException(n.keyPath("pattern") + ": must name a whole date and time (year, month, "
                            + "day, hour, minute), was \"" + pattern + "\"");
                }
            } catch (IllegalArgumentException | DateTimeException e) {
                throw new ConfigException(n.keyPath("pattern") + ": not a DateTimeFormatter pattern: " + e.getMessage()
                        + ", was \"" + pattern + "\"");
            }
        } else if (pattern != null) {
            throw new ConfigException(n.keyPath("pattern") + ": is set but " + n.keyPath("layout") + " is "
                    + layout.configName() + "; set layout: pattern or remove it");
        }
        return new EventTime(field, layout, zone, pattern);
    }
}
