package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.query.LineContains;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.record.LogRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How records look to LogQL (docs/loki.md#labels): the labels {@code service}, {@code level}, {@code instance_id},
 * {@code region}, {@code trace_id}, {@code span_id} and each structured field as {@code fields_<name>} (characters
 * Loki does not allow in a label name become {@code _}); the line is the record's message. A stream is identified by
 * its labels less the trace and span ids and the fields the pipeline itself writes (log.offset and the like), which
 * would make every record a stream of its own.
 */
final class Streams {
    static final List<String> TOP_LABELS = List.of(Fields.SERVICE, Fields.LEVEL, Fields.INSTANCE_ID, Fields.REGION);
    private static final Set<String> HIDDEN;

    static {
        java.util.HashSet<String> h = new java.util.HashSet<>(Set.of(Fields.TRACE_ID, Fields.SPAN_ID));
        for (String f : Fields.PIPELINE_FIELDS) {
            h.add(fieldLabel(f));
        }
        HIDDEN = Set.copyOf(h);
    }

    private Streams() {}

    static String fieldLabel(String fieldName) {
        return Pipeline.sanitize("fields_" + fieldName);
    }

    static Map<String, String> labels(LogRecord r) {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, Fields.SERVICE, r.service());
        m.put(Fields.LEVEL, r.level().name());
        put(m, Fields.INSTANCE_ID, r.instanceId());
        put(m, Fields.REGION, r.region());
        put(m, Fields.TRACE_ID, r.traceId());
        put(m, Fields.SPAN_ID, r.spanId());
        r.fields().forEach((k, v) -> m.put(fieldLabel(k), String.valueOf(v)));
        return m;
    }

    private static void put(Map<String, String> m, String k, String v) {
        if (v != null && !v.isEmpty()) {
            m.put(k, v);
        }
    }

    /** The labels that name a stream or series, sorted; empty values are left out, as Loki does. */
    static SortedMap<String, String> identity(Map<String, String> labels) {
        SortedMap<String, String> out = new TreeMap<>();
        labels.forEach((k, v) -> {
            if (!HIDDEN.contains(k) && !v.isEmpty()) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Adds each stream to {@code result} as Loki writes it: {@code {"stream":{labels},"values":[["<ns>","<line>"],...]}}. */
    static void write(Map<SortedMap<String, String>, ArrayNode> streams, ArrayNode result) {
        streams.forEach((labels, values) -> {
            ObjectNode s = result.addObject();
            ObjectNode stream = s.putObject("stream");
            labels.forEach(stream::put);
            s.set("values", values);
        });
    }

    /**
     * The parts of a selector the engine can match exactly, as a query for the planner and the shards (so label
     * pruning and the budget apply): {@code =} and {@code !=} on the four labels, and {@code =~} that is an
     * alternation of plain values. The pipeline checks every matcher again, so what is left out only costs reading.
     */
    static ParsedQuery engineQuery(String text, List<LogQl.Matcher> selector) {
        List<QueryNode.Clause> clauses = new ArrayList<>();
        boolean required = false;
        for (LogQl.Matcher m : selector) {
            if (!TOP_LABELS.contains(m.name()) || m.value().isEmpty()) {
                continue;
            }
            switch (m.op()) {
                case EQ -> {
                    clauses.add(new QueryNode.Clause(QueryNode.Occur.MUST, term(m.name(), m.value())));
                    required = true;
                }
                case NE -> clauses.add(new QueryNode.Clause(QueryNode.Occur.MUST_NOT, term(m.name(), m.value())));
                case RE -> {
                    if (m.value().matches("[A-Za-z0-9_.:-]+(\\|[A-Za-z0-9_.:-]+)*")) {
                        List<QueryNode.Clause> any = new ArrayList<>();
                        for (String v : m.value().split("\\|")) {
                            any.add(new QueryNode.Clause(QueryNode.Occur.SHOULD, term(m.name(), v)));
                        }
                        clauses.add(new QueryNode.Clause(QueryNode.Occur.MUST, new QueryNode.Bool(any)));
                        required = true;
                    }
                }
                case NRE -> {}
            }
        }
        if (clauses.isEmpty()) {
            return new ParsedQuery(text, new QueryNode.MatchAll());
        }
        if (!required) {
            clauses.add(0, new QueryNode.Clause(QueryNode.Occur.MUST, new QueryNode.MatchAll()));
        }
        return new ParsedQuery(text, new QueryNode.Bool(clauses));
    }

    /**
     * As {@link #engineQuery(String, List)}, and each {@code |= "text"} line filter that sees the stored message (one
     * before any {@code | line_format}) narrowed through the index ({@link LineContains}): the shards name the records
     * that may contain the text, the pipeline checks each of those exactly. Only for a caller that runs the pipeline on
     * every record the engine hands it.
     */
    /**
     * Line filters narrowed through the index, and runs asked per filter, at most: 8 × 64 leaves stay well inside the
     * 1,024 clauses an engine takes, however long the pasted texts are (the filters past them are only checked).
     */
    static final int NARROWED_FILTERS = 8;

    static final int CLAUSES_PER_FILTER = 64;

    static ParsedQuery engineQuery(String text, LogQl.LogQuery query) {
        ParsedQuery selected = engineQuery(text, query.selector());
        List<QueryNode.Clause> clauses = new ArrayList<>();
        for (LogQl.Stage stage : query.pipeline()) {
            if (stage instanceof LogQl.LineFormat) {
                break; // later filters see the rewritten line
            }
            if (stage instanceof LogQl.LineFilter f
                    && f.op() == LogQl.LineOp.CONTAINS
                    && clauses.size() < NARROWED_FILTERS) {
                lineFilter(f.values()).ifPresent(n -> clauses.add(new QueryNode.Clause(QueryNode.Occur.MUST, n)));
            }
        }
        if (clauses.isEmpty()) {
            return selected;
        }
        clauses.add(0, new QueryNode.Clause(QueryNode.Occur.MUST, selected.root()));
        return new ParsedQuery(text, new QueryNode.Bool(clauses));
    }

    /**
     * The records that may hold any of the values, asking at most {@link #CLAUSES_PER_FILTER} runs in all; empty when
     * one of them cannot be narrowed.
     */
    private static Optional<QueryNode> lineFilter(List<String> values) {
        int each = CLAUSES_PER_FILTER / values.size();
        if (each == 0) {
            return Optional.empty();
        }
        List<QueryNode.Clause> any = new ArrayList<>();
        for (String v : values) {
            Optional<QueryNode> n = LineContains.candidates(v, Math.min(each, LineContains.MAX_CLAUSES));
            if (n.isEmpty()) {
                return Optional.empty();
            }
            any.add(new QueryNode.Clause(QueryNode.Occur.SHOULD, n.get()));
        }
        return any.size() == 1 ? Optional.of(any.get(0).node()) : Optional.of(new QueryNode.Bool(any));
    }

    private static QueryNode term(String field, String value) {
        return new QueryNode.Text(field, Fields.cap(value), true, 0);
    }
}
