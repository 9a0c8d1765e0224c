package dev.logpipe.query.internal.rules;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The series of the recording rules, as their last evaluation gave them, for the query service's {@code /metrics}
 * (Prometheus text format 0.0.4: one {@code # TYPE name gauge} per name, any label sets under it). A rule's series are
 * replaced whole at each evaluation and dropped when one fails, so a scrape never shows a value older than the rule's
 * last good evaluation as if it were current. Bounded: at most {@link #MAX_BYTES} of memory in all, {@link #MAX_PER_RULE} series a rule and {@link #MAX_ALL}
 * in all; a rule over either keeps none and its evaluation fails with the reason. Thread-safe.
 */
public final class RecordedSeries {
    public static final int MAX_PER_RULE = 1_000;
    public static final int MAX_ALL = 10_000;
    /** The memory all rules' series may hold together, estimated per series ({@link #bytes}). */
    public static final long MAX_BYTES = 8L * 1024 * 1024;

    /** One series: its name, labels (tenant_id among them) and value. */
    record Sample(String name, SortedMap<String, String> labels, double value) {}

    private final Map<String, List<Sample>> byRule = new LinkedHashMap<>();
    private int total;
    private long totalBytes;

    /** A series' memory: its name and labels as UTF-16, and the objects around them. */
    static long bytes(Sample s) {
        long b = 64 + 2L * s.name().length();
        for (Map.Entry<String, String> l : s.labels().entrySet()) {
            b += 96 + 2L * (l.getKey().length() + l.getValue().length());
        }
        return b;
    }

    private static long bytes(List<Sample> samples) {
        long b = 0;
        for (Sample s : samples) {
            b += bytes(s);
        }
        return b;
    }

    /**
     * Replaces the series of the rule {@code key}.
     *
     * @throws IllegalStateException over a bound (the rule's series are dropped; the message says which bound)
     */
    synchronized void replace(String key, List<Sample> samples) {
        drop(key);
        if (samples.size() > MAX_PER_RULE) {
            throw new IllegalStateException("the rule gives " + samples.size() + " series, more than the "
                    + MAX_PER_RULE + " a recording rule may write; aggregate further (sum by fewer labels)");
        }
        if (total + samples.size() > MAX_ALL) {
            throw new IllegalStateException("the recording rules hold " + total + " series; this rule's "
                    + samples.size() + " would pass the " + MAX_ALL + " all rules may write together");
        }
        long b = bytes(samples);
        if (totalBytes + b > MAX_BYTES) {
            throw new IllegalStateException("the recording rules hold " + totalBytes + " bytes of series; this rule's "
                    + b + " would pass the " + MAX_BYTES + " all rules may hold together (its labels are long)");
        }
        byRule.put(key, List.copyOf(samples));
        total += samples.size();
        totalBytes += b;
    }

    /** Drops the series of the rule {@code key} (its evaluation failed). */
    synchronized void drop(String key) {
        List<Sample> old = byRule.remove(key);
        if (old != null) {
            total -= old.size();
            totalBytes -= bytes(old);
        }
    }

    synchronized int size() {
        return total;
    }

    /** The series in Prometheus text format, grouped by name; empty when there are none. */
    public String render() {
        Map<String, List<Sample>> byName = new TreeMap<>();
        synchronized (this) {
            for (List<Sample> l : byRule.values()) {
                for (Sample s : l) {
                    byName.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
                }
            }
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, List<Sample>> e : byName.entrySet()) {
            b.append("# HELP ").append(e.getKey()).append(" logpipe recording rule\n");
            b.append("# TYPE ").append(e.getKey()).append(" gauge\n");
            for (Sample s : e.getValue()) {
                b.append(s.name());
                if (!s.labels().isEmpty()) {
                    b.append('{');
                    boolean first = true;
                    for (Map.Entry<String, String> l : s.labels().entrySet()) {
                        b.append(first ? "" : ",").append(l.getKey()).append("=\"");
                        escape(l.getValue(), b);
                        b.append('"');
                        first = false;
                    }
                    b.append('}');
                }
                b.append(' ').append(value(s.value())).append('\n');
            }
        }
        return b.toString();
    }

    private static void escape(String v, StringBuilder b) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
    }

    private static String value(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
