package dev.logpipe.forwarder.internal.time;

import dev.logpipe.forwarder.config.TimeLayout;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * A Java {@link DateTimeFormatter} pattern, for layouts the fixed parsers do not cover, read by
 * {@link TimeLayout#readPattern} (the rule the config check uses too). A time without an offset or zone in the text
 * is local to the configured zone. Slower than the fixed layouts (java.time
 * objects per line), but text that does not match is detected without an exception.
 */
final class PatternTimeParser implements TimeParser {
    private final DateTimeFormatter formatter;
    private final ZoneId zone;

    PatternTimeParser(DateTimeFormatter formatter, ZoneId zone) {
        this.formatter = formatter;
        this.zone = zone;
    }

    @Override
    public long parse(byte[] b, int off, int len) {
        return parse(new String(b, off, len, StandardCharsets.ISO_8859_1));
    }

    @Override
    public long parse(CharSequence text) {
        Instant instant = TimeLayout.readPattern(formatter, text, zone);
        if (instant == null) {
            return NONE;
        }
        return CivilTime.nanos(instant.getEpochSecond(), instant.getNano());
    }
}
