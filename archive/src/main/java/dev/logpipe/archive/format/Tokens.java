package dev.logpipe.archive.format;

import com.carrotsearch.hppc.LongHashSet;
import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.record.LogRecord;
import java.util.Map;

/**
 * The tokens a block's filter holds for a record (docs/archive-format.md#token-filter): {@code m:} + each token of the
 * message as the hot index's analyzer writes it (wholes and parts, lower-case), and {@code k:<field>=<value>} for each
 * keyword value (the labels, {@code trace_id}, {@code span_id}, and every structured field as {@code fields.<name>},
 * its value as text). A query's probe is built with the same two functions.
 */
public final class Tokens {
    private static final String MESSAGE = "m:";
    private static final String KEYWORD = "k:";

    private Tokens() {}

    /** The probe of one message token (already lower-case, as the query analyzer reads it). */
    public static String message(String token) {
        return MESSAGE + token;
    }

    /** The probe of one keyword value. */
    public static String keyword(String field, String value) {
        return KEYWORD + field + "=" + value;
    }

    /** Adds the hash ({@link TokenFilter#hash}) of every token of {@code r} to {@code out}, no token string made. */
    static void addAll(LogRecord r, LongHashSet out) {
        LogAnalyzer.forEachIndexToken(
                r.message(), (chars, length) -> out.add(TokenFilter.hash(MESSAGE, chars, length)));
        out.add(TokenFilter.hash(KEYWORD, "level", "=", r.level().name()));
        keywordIfSet("service", r.service(), out);
        keywordIfSet("instance_id", r.instanceId(), out);
        keywordIfSet("region", r.region(), out);
        keywordIfSet("trace_id", r.traceId(), out);
        keywordIfSet("span_id", r.spanId(), out);
        for (Map.Entry<String, Object> f : r.fields().entrySet()) {
            out.add(TokenFilter.hash(KEYWORD, "fields.", f.getKey(), "=", String.valueOf(f.getValue())));
        }
    }

    private static void keywordIfSet(String field, String value, LongHashSet out) {
        if (value != null) {
            out.add(TokenFilter.hash(KEYWORD, field, "=", value));
        }
    }
}
