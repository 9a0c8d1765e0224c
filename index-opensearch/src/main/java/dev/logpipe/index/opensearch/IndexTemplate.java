package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardKind;

/**
 * What the OpenSearch store's index template carries so that an index of OpenSearch finds the same records as a Lucene
 * shard: the schema of {@link Fields} ({@link #body}) and the log analyzer (docs/search.md#analyzer) as OpenSearch's own
 * analysis chain ({@link #analysis}).
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

    /** Keyword fields of the schema, records and dead letters alike. */
    private static final String[] KEYWORDS = {
        Fields.RECORD_ID,
        Fields.TENANT_ID,
        Fields.LEVEL,
        Fields.SERVICE,
        Fields.INSTANCE_ID,
        Fields.REGION,
        Fields.TRACE_ID,
        Fields.SPAN_ID,
        Fields.RUNS_WHOLE,
        Fields.DL_REASON
    };

    /**
     * The body of {@code PUT _index_template/<prefix>}: every index of the store's records and dead letters gets its
     * shards, replicas and refresh interval, a translog made durable before a bulk is answered (so an acknowledged bulk
     * is durable), the index sorted as the Lucene shards are ({@code event_time} desc, {@code record_id}), the log
     * analyzers, and the mapping: the schema's keywords with doc values, {@code message}, {@code detail} and
     * {@code raw} as text through the log analyzer, both times as epoch milliseconds, {@code fields.*} typed by dynamic
     * templates (a name's text as keyword, its typed companions {@code #long} and {@code #double} as numbers; names
     * escaped by {@link OpenSearchDocuments#fieldName}), and the record as accepted in {@code source}, the only part of
     * the document {@code _source} keeps.
     */
    public static ObjectNode body(OpenSearchSettings settings) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        IndexNames names = new IndexNames(settings.indexPrefix());
        ObjectNode body = f.objectNode();
        body.putArray("index_patterns")
                .add(names.pattern(ShardKind.RECORDS))
                .add(names.pattern(ShardKind.DEAD_LETTERS));
        body.put("priority", 100);
        ObjectNode template = body.putObject("template");
        ObjectNode index = template.putObject("settings").putObject("index");
        index.put("number_of_shards", settings.shards())
                .put("number_of_replicas", settings.replicas())
                .put("refresh_interval", settings.refreshInterval().toMillis() + "ms");
        index.putObject("translog").put("durability", "request");
        ObjectNode sort = index.putObject("sort");
        sort.putArray("field").add(Fields.EVENT_TIME).add(Fields.RECORD_ID);
        sort.putArray("order").add("desc").add("asc");
        index.set("analysis", analysis());
        ObjectNode mappings = template.putObject("mappings");
        mappings.putObject("_source").putArray("includes").add(OpenSearchDocuments.SOURCE);
        ArrayNode dynamic = mappings.putArray("dynamic_templates");
        // JSON type of a fields.* value -> mapping type: whole and decimal companions as numbers, names' text as
        // keyword
        for (String[] t : new String[][] {{"long", "long"}, {"double", "double"}, {"string", "keyword"}}) {
            dynamic.addObject()
                    .putObject("fields_" + t[1])
                    .put("path_match", Fields.FIELDS_PREFIX + "*")
                    .put("match_mapping_type", t[0])
                    .putObject("mapping")
                    .put("type", t[1]);
        }
        ObjectNode properties = mappings.putObject("properties");
        for (String k : KEYWORDS) {
            properties.putObject(k).put("type", "keyword");
        }
        for (String t : new String[] {Fields.EVENT_TIME, Fields.OBSERVED_TIME}) {
            properties.putObject(t).put("type", "date").put("format", "epoch_millis");
        }
        for (String t : new String[] {Fields.MESSAGE, Fields.DL_DETAIL, Fields.DL_RAW}) {
            properties
                    .putObject(t)
                    .put("type", "text")
                    .put("analyzer", LOG_ANALYZER)
                    .put("search_analyzer", LOG_QUERY_ANALYZER);
        }
        properties.putObject("fields").put("type", "object");
        properties
                .putObject(OpenSearchDocuments.SOURCE)
                .put("type", "keyword")
                .put("index", false)
                .put("doc_values", false);
        return body;
    }

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
