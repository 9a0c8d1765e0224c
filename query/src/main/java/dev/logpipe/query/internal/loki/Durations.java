package dev.logpipe.query.internal.loki;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations ({@code 1h30m}, {@code 250ms}) and sizes ({@code 10KB}, {@code 1MiB}) as LogQL writes them. */
final class Durations {
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)");
    private static final Pattern BYTES = Pattern.compile("(\\d+(?:\\.\\d+)?)([kKMGTPE]?i?[bB])");
    /** Longest duration accepted: ten years, so no sum of parts overflows. */
    private static final double MAX_MILLIS = 10 * 366 * 86_400_000d;

    private Durations() {}

    /** Milliseconds of a duration text, rounded down; null when it is not one. */
    static Long millis(String s) {
        Double ns = nanos(s);
        return ns == null ? null : (long) (ns / 1_000_000);
    }

    /** Nanoseconds of a duration text; null when it is not one or is longer than ten years. */
    static Double nanos(String s) {
        Matcher m = DURATION_PART.matcher(s);
        int at = 0;
        double total = 0;
        while (at < s.length()) {
            if (!m.find(at) || m.start() != at) {
                return null;
            }
            double v = Double.parseDouble(m.group(1));
            total += v
                    * switch (m.group(2)) {
                        case "ns" -> 1d;
                        case "us", "µs" -> 1e3;
                        case "ms" -> 1e6;
                        case "s" -> 1e9;
                        case "m" -> 60e9;
                        case "h" -> 3600e9;
                        case "d" -> 86_400e9;
                        case "w" -> 7 * 86_400e9;
                        default -> 365 * 86_400e9;
                    };
            at = m.end();
        }
        return at == 0 || total / 1e6 > MAX_MILLIS ? null : total;
    }

    /** Bytes of a size text ({@code 1KB} = 1000, {@code 1KiB} = 1024); null when it is not one. */
    static Double bytes(String s) {
        Matcher m = BYTES.matcher(s);
        if (!m.matches()) {
            return null;
        }
        String unit = m.group(2);
        boolean binary = unit.contains("i");
        int power = "kKMGTPE".indexOf(unit.charAt(0));
        int exp = power < 0 ? 0 : Math.max(1, power);
        return Double.parseDouble(m.group(1)) * Math.pow(binary ? 1024 : 1000, exp);
    }
}
