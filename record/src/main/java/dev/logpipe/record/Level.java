package dev.logpipe.record;

import java.util.Locale;
import java.util.Map;

/** Normalized severity of a record (docs/record-format.md). Anything we cannot map is {@link #UNKNOWN}. */
public enum Level {
    TRACE,
    DEBUG,
    INFO,
    WARN,
    ERROR,
    FATAL,
    UNKNOWN;

    private static final Map<String, Level> ALIASES = Map.ofEntries(
            Map.entry("trace", TRACE),
            Map.entry("trc", TRACE),
            Map.entry("finest", TRACE),
            Map.entry("finer", TRACE),
            Map.entry("debug", DEBUG),
            Map.entry("dbg", DEBUG),
            Map.entry("fine", DEBUG),
            Map.entry("info", INFO),
            Map.entry("inf", INFO),
            Map.entry("information", INFO),
            Map.entry("informational", INFO),
            Map.entry("notice", INFO),
            Map.entry("warn", WARN),
            Map.entry("warning", WARN),
            Map.entry("wrn", WARN),
            Map.entry("error", ERROR),
            Map.entry("err", ERROR),
            Map.entry("eror", ERROR),
            Map.entry("severe", ERROR),
            Map.entry("fatal", FATAL),
            Map.entry("critical", FATAL),
            Map.entry("crit", FATAL),
            Map.entry("alert", FATAL),
            Map.entry("emerg", FATAL),
            Map.entry("emergency", FATAL),
            Map.entry("panic", FATAL));

    /** Maps a level as applications write it ("warning", "ERR", "Critical") to its normalized form; null and unknown text give UNKNOWN. */
    public static Level normalize(String text) {
        if (text == null) {
            return UNKNOWN;
        }
        Level level = ALIASES.get(text.trim().toLowerCase(Locale.ROOT));
        return level == null ? UNKNOWN : level;
    }
}
