package dev.logpipe.index.schema;

import java.util.List;
import java.util.Set;

/**
 * The names of the Lucene fields of a record document, in one place (docs/search.md lists them). The indexer writes
 * them, the query service searches them; nothing else spells a field name.
 *
 * <p>Keywords are indexed whole (case kept) with sorted doc values; times are epoch milliseconds as a point with
 * numeric doc values; {@link #MESSAGE} is full text through {@link dev.logpipe.index.analysis.LogAnalyzer}.
 * A structured field {@code fields.<name>} is always a keyword of its text form ({@code fields.status:200} and
 * {@code fields.ok:true} match), and a number is also a point with doc values under
 * {@code fields.<name>#long} or {@code fields.<name>#double} (see {@link FieldKind}), so one name may hold a number in
 * one record and a string in another without a schema conflict.
 */
public final class Fields {
    public static final String RECORD_ID = "record_id";
    public static final String TENANT_ID = "tenant_id";
    public static final String EVENT_TIME = "event_time";
    public static final String OBSERVED_TIME = "observed_time";
    public static final String LEVEL = "level";
    public static final String SERVICE = "service";
    public static final String INSTANCE_ID = "instance_id";
    public static final String REGION = "region";
    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";
    public static final String MESSAGE = "message";

    /**
     * Set (keyword {@link #MESSAGE}) on a record whose message has no run of token characters longer than the analyzer
     * keeps whole ({@code LogTokens.runsWhole}): a substring inside one of its runs is then inside one indexed token,
     * which lets a LogQL line filter ({@code |= "text"}) be answered from the index first ({@code LineContains}). A
     * record without it (a longer run, or written before the field existed) is always read and checked.
     */
    public static final String RUNS_WHOLE = "runs_whole";
    /** Prefix of structured fields: {@code fields.http.status}. */
    public static final String FIELDS_PREFIX = "fields.";
    /** The record exactly as accepted (its NDJSON line, UTF-8), stored and never indexed. */
    public static final String SOURCE = "_source";
    /** Set (keyword {@code true}) on a record routed by observed_time because its event_time was out of range. */
    public static final String EVENT_TIME_OUT_OF_RANGE = "fields._event_time_out_of_range";

    /**
     * Structured field names the pipeline itself writes (the collector's and the indexer's marks, the forwarder's file
     * position that context search orders by): always indexed, and not counted against a shard's cap on distinct
     * field names (docs/indexer.md#field-names).
     */
    public static final Set<String> PIPELINE_FIELDS = Set.of(
            "_event_time_out_of_range",
            "logpipe.event_time.flag",
            "logpipe.redaction.withheld",
            "log.file.path",
            "log.offset",
            "log.truncated");

    /** Dead-letter shards: the reason code, its detail and the rejected line (redacted by the collector). */
    public static final String DL_REASON = "reason";

    public static final String DL_DETAIL = "detail";
    public static final String DL_RAW = "raw";

    /** The top-level keyword fields, each single-valued with sorted doc values. */
    public static final List<String> KEYWORDS =
            List.of(RECORD_ID, TENANT_ID, LEVEL, SERVICE, INSTANCE_ID, REGION, TRACE_ID, SPAN_ID);
    /** Keyword fields whose values a shard's metadata lists, so a planner can prune shards without opening them. */
    public static final List<String> LABELS = List.of(LEVEL, SERVICE, INSTANCE_ID, REGION);

    /**
     * Every top-level field a query may name, on record and dead-letter shards; any other bare name in a query means
     * {@code fields.<name>} (docs/search.md#field-names).
     */
    public static final Set<String> TOP_LEVEL = Set.of(
            RECORD_ID,
            TENANT_ID,
            EVENT_TIME,
            OBSERVED_TIME,
            LEVEL,
            SERVICE,
            INSTANCE_ID,
            REGION,
            TRACE_ID,
            SPAN_ID,
            MESSAGE,
            DL_REASON,
            DL_DETAIL,
            DL_RAW);

    /** Longest keyword indexed; a longer value is indexed by its first this-many characters (the source keeps all). */
    public static final int MAX_KEYWORD_CHARS = 256;

    private Fields() {}

    /** The Lucene field of a structured field's keyword form: {@code fields.} + name. */
    public static String keyword(String fieldName) {
        return FIELDS_PREFIX + fieldName;
    }

    /** The Lucene field holding the points and doc values of a numeric structured field of the given kind. */
    public static String numeric(String fieldName, FieldKind kind) {
        if (kind != FieldKind.LONG && kind != FieldKind.DOUBLE) {
            throw new IllegalArgumentException("kind: only LONG and DOUBLE fields have points, was " + kind);
        }
        return FIELDS_PREFIX + fieldName + kind.suffix();
    }

    /** A keyword value as indexed: its first {@link #MAX_KEYWORD_CHARS} characters. */
    public static String cap(String value) {
        return value.length() <= MAX_KEYWORD_CHARS ? value : value.substring(0, MAX_KEYWORD_CHARS);
    }
}
