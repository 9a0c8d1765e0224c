package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the OpenSearch store's index template carries so that an index of OpenSearch finds the same records as a Lucene
 * shard. Today: the log analyzer (docs/search.md#analyzer) as OpenSearch's own analysis chain.
 *
 * <p>{@value #LOG_ANALYZER} indexes a run of letters, digits and the joiners {@code . - / @ _} without the joiners at
 * its ends, lower-cased, whole and, when it holds a joiner, also by the pieces between its joiners at the same position;
 * {@value #LOG_QUERY_ANALYZER} reads a query the same way as wholes only. The tokenizer's pattern matches a run from its
 * first to its last character that is not a joiner (at most {@value #MAX_TOKEN_CHARS}), so a run of joiners only gives
 * no token and takes no position, as in {@code LogAnalyzer}. It differs from {@code LogAnalyzer} in two corners, both
 * named in docs/search.md: a run longer than {@value #MAX_TOKEN_CHARS} characters is cut after its trimmed start rather
 * than before it, and an upper-case letter outside the Basic Multilingual Plane is lower-cased here and kept there.
 */
public final class IndexTemplate {
    public static final String LOG_ANALYZER = "logpipe_log";
    public static final String LOG_QUERY_ANALYZER = "logpipe_log_query";
    static final int MAX_TOKEN_CHARS = 255;

    /** A character that may end a token: a letter, a decimal digit, a non-spacing mark, or outside the BMP. */
    private static final String WORD = "\\p{L}\\p{Nd}\\p{Mn}\\x{10000}-\\x{10FFFF}";

    private static final String JOINERS = "._@/\\-";

    private IndexTemplate() {}

    /** The {@code settings.analysis} of every logpipe index: the two log analyzers, their tokenizer and filters. */
    public static ObjectNode analysis() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode analysis = f.objectNode();
        analysis.putObject("tokenizer")
                .putObject("logpipe_runs")
                .put("type", "pattern")
                .put(
                        "pattern",
                        "[" + WORD + "](?:[" + WORD + JOINERS + "]{0," + (MAX_TOKEN_CHARS - 2) + "}[" + WORD + "])?")
                .put("group", 0);
        ObjectNode filters = analysis.putObject("filter");
        filters.putObject("logpipe_parts")
                .put("type", "pattern_capture")
                .put("preserve_original", true)
                .putArray("patterns")
                .add("([^" + JOINERS + "]+)");
        ObjectNode analyzers = analysis.putObject("analyzer");
        analyzers
                .putObject(LOG_ANALYZER)
                .put("type", "custom")
                .put("tokenizer", "logpipe_runs")
                .putArray("filter")
                .add("lowercase")
                .add("logpipe_parts");
        analyzers
                .putObject(LOG_QUERY_ANALYZER)
                .put("type", "custom")
                .put("tokenizer", "logpipe_runs")
                .putArray("filter")
                .add("lowercase");
        return analysis;
    }
}
