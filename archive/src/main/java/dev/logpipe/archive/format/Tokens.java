package dev.logpipe.archive.format;

import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.record.LogRecord;
import java.util.Map;
import java.util.Set;

/**
 * The tokens a block's filter holds for a record (docs/archive-format.md#token-filter): {@code m:} + each token of the
 * message as the hot index's analyzer writes it (wholes and parts, lower-case), and {@code k:<field>=<value>} for each
 * keyword value (the labels, {@code trace_id}, {@code span_id}, and every structured field as {@code fields.<name>},
 * its value as text). A query's probe is built with the same two functions.
 */
public final class Tokens {
    private Tokens() {}

    /** The probe of one message token (already lower-case, as the query analyzer reads it). */
    public static String message(String token) {
        return "m:" + token;
    }

    /** The probe of one keyword value. */
    public static String keyword(String field, String value) {
        return "k:" + field + "=" + value;
    }

    static void addAll(LogRecord r, Set<String> out) {
        for (String token : LogAnalyzer.indexTokens(r.message())) {
            out.add(message(token));
        }
        out.add(keyword("level", r.level().name()));
        keywordIfSet("service", r.service(), out);
        keywordIfSet("instance_id", r.instanceId(), out);
        keywordIfSet("region", r.region(), out);
        keywordIfSet("trace_id", r.traceId(), out);
        keywordIfSet("span_id", r.spanId(), out);
        for (Map.Entry<String, Object> f : r.fields().entrySet()) {
            out.add(keyword("fields." + f.getKey(), String.valueOf(f.getValue())));
        }
    }

    private static void keywordIfSet(String field, String value, Set<String> out) {
        if (value != null) {
            out.add(keyword(field, value));
        }
    }
}
