package dev.logpipe.collector.internal.compat.loki;

import dev.logpipe.collector.internal.compat.RecordTree;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Loki entry as a schema-v3 record (docs/ingest.md#loki): the line is the message, the timestamp
 * {@code event_time}; stream labels and structured metadata are fields under their names, except that
 * {@code service_name} (else {@code service}) is the service, {@code level} (else {@code detected_level},
 * {@code severity}) the level, {@code instance} the instance, and metadata {@code trace_id}/{@code span_id} the
 * trace and span ids.
 */
final class LokiMapping {
    private LokiMapping() {}

    static byte[] toLine(
            Map<String, String> labels, long seconds, int nanos, String line, Map<String, String> metadata) {
        RecordTree r = new RecordTree();
        r.forceMessage(line == null ? "" : line);
        if (seconds != 0 || nanos != 0) {
            r.eventTime(Instant.ofEpochSecond(seconds, nanos));
        }
        Map<String, String> all = new LinkedHashMap<>(labels);
        all.putAll(metadata);
        r.top("service", all.remove("service_name"));
        r.top("service", all.remove("service"));
        r.top("level", all.remove("level"));
        r.top("level", all.remove("detected_level"));
        r.top("level", all.remove("severity"));
        r.top("instance_id", all.remove("instance"));
        r.top("trace_id", metadata.containsKey("trace_id") ? all.remove("trace_id") : null);
        r.top("span_id", metadata.containsKey("span_id") ? all.remove("span_id") : null);
        all.forEach(r::field);
        return r.toLine();
    }

    /**
     * Labels in Prometheus text form, {@code {name="value", other="v\"x"}}.
     *
     * @throws IllegalArgumentException with what is wrong
     */
    static Map<String, String> labels(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        String s = text.strip();
        if (!s.startsWith("{") || !s.endsWith("}")) {
            throw new IllegalArgumentException("stream labels must be {name=\"value\", ...}, were " + cut(text));
        }
        int i = 1;
        int end = s.length() - 1;
        while (true) {
            while (i < end && (s.charAt(i) == ' ' || s.charAt(i) == ',')) {
                i++;
            }
            if (i >= end) {
                return out;
            }
            int eq = s.indexOf('=', i);
            if (eq < 0 || eq + 1 >= end || s.charAt(eq + 1) != '"') {
                throw new IllegalArgumentException("stream labels are not name=\"value\" pairs: " + cut(text));
            }
            String name = s.substring(i, eq).strip();
            StringBuilder v = new StringBuilder();
            int j = eq + 2;
            for (; j < end && s.charAt(j) != '"'; j++) {
                char c = s.charAt(j);
                if (c == '\\' && j + 1 < end) {
                    char n = s.charAt(++j);
                    v.append(n == 'n' ? '\n' : n);
                } else {
                    v.append(c);
                }
            }
            if (j >= end || name.isEmpty()) {
                throw new IllegalArgumentException("stream labels have an unterminated value: " + cut(text));
            }
            out.put(name, v.toString());
            i = j + 1;
        }
    }

    private static String cut(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }
}
