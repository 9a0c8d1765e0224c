package dev.logpipe.forwarder.internal.time;

import java.nio.charset.StandardCharsets;
import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * A Java {@link DateTimeFormatter} pattern, for layouts the fixed parsers do not cover. A time without an
 * offset or zone in the text is local to the configured zone. Slower than the fixed layouts (java.time
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
        ParsePosition pos = new ParsePosition(0);
        if (formatter.parseUnresolved(text, pos) == null || pos.getIndex() != text.length()) {
            return NONE;
        }
        try {
            TemporalAccessor t = formatter.parse(text);
            Instant instant;
            if (t.isSupported(ChronoField.INSTANT_SECONDS)) {
                instant = Instant.from(t);
            } else {
                instant =
                        ZonedDateTime.ofLocal(LocalDateTime.from(t), zone, null).toInstant();
            }
            return CivilTime.nanos(instant.getEpochSecond(), instant.getNano());
        } catch (DateTimeException | ArithmeticException e) {
            return NONE; // fields that parse but do not resolve (31 February); rare, not the common case
        }
    }
}
