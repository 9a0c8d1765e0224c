package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.NumericRange;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Exists;
import dev.logpipe.index.query.QueryNode.Fuzzy;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Wildcard;
import dev.logpipe.index.query.QueryNode.Words;
import dev.logpipe.index.query.RangeBounds;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Set;

/**
 * A parsed query as OpenSearch's query DSL over the store's mapping ({@link IndexTemplate#body}), meaning what the
 * Lucene store makes of it: a term is analysed by the field's search analyzer ({@code match}, any word matching), a
 * quoted text is a phrase with its slop, prefix, wildcard, regular expression and fuzzy terms are lower-cased on the
 * full-text fields as the classic parser does, a range on {@code fields.<name>} with number bounds matches the whole
 * and decimal forms exactly (the bounds as written, never rounded the wrong way), a range on a time takes epoch
 * milliseconds or RFC 3339, a structured field's name is escaped ({@link OpenSearchDocuments#fieldName}), a term on a
 * time matches nothing (as a term on a Lucene point does), so does a field outside the schema (OpenSearch's own
 * {@code _id} or {@code _index} never reach a document), {@code field:*} is an {@code exists} query, and a boolean with
 * only excluded clauses matches nothing (the parser has already made a purely negative query "everything except").
 * Boosts are dropped: answers are sorted by time, never by score.
 */
final class OpenSearchQueries {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final Set<String> FULL_TEXT = Set.of(Fields.MESSAGE, Fields.DL_DETAIL, Fields.DL_RAW);
    private static final Set<String> TIMES = Set.of(Fields.EVENT_TIME, Fields.OBSERVED_TIME);
    /** The fields of the schema a query may name, besides {@code fields.*}; any other name finds nothing. */
    private static final Set<String> SCHEMA = Set.of(
            Fields.RECORD_ID,
            Fields.TENANT_ID,
            Fields.EVENT_TIME,
            Fields.OBSERVED_TIME,
            Fields.LEVEL,
            Fields.SERVICE,
            Fields.INSTANCE_ID,
            Fields.REGION,
            Fields.TRACE_ID,
            Fields.SPAN_ID,
            Fields.MESSAGE,
            Fields.RUNS_WHOLE,
            Fields.DL_REASON,
            Fields.DL_DETAIL,
            Fields.DL_RAW);
    /** 2^53 ms (about 285,000 years) either side of 1970: within OpenSearch's dates, past any record's. */
    static final long TIME_LIMIT = 1L << 53;

    private OpenSearchQueries() {}

    /**
     * @param defaultField the field of a term without one ({@code message}; {@code raw} on dead-letter indices)
     * @throws InvalidQuery a bound that is neither a time nor a number where one is needed
     */
    static ObjectNode translate(String defaultField, ParsedQuery query) {
        ObjectNode q = new Translator(defaultField).node(query.root());
        return q == null ? matchNone() : q;
    }

    private record Translator(String defaultField) {
        /** Null for a clause that analyses to nothing (the parser leaves those out already). */
        ObjectNode node(QueryNode n) {
            if (n instanceof MatchAll) {
                return object("match_all", F.objectNode());
            }
            if (n instanceof Boost b) {
                return node(b.node());
            }
            if (n instanceof Bool b) {
                return bool(b);
            }
            String field = field(n instanceof Range r ? r.field() : fieldOf(n));
            if (!known(field)) {
                return matchNone(); // a name outside the schema (OpenSearch's own _id, _index, the stored source...)
            }
            if (n instanceof Range r) {
                return range(field, r);
            }
            if (n instanceof Exists) {
                return object("exists", F.objectNode().put("field", mapped(field)));
            }
            if (TIMES.contains(field)) {
                return matchNone(); // a time is a point: no term, prefix or pattern reaches it
            }
            String target = mapped(field);
            boolean text = FULL_TEXT.contains(field);
            if (n instanceof Text t) {
                return t.quoted()
                        ? object(
                                "match_phrase",
                                object(
                                        target,
                                        F.objectNode().put("query", t.text()).put("slop", t.slop())))
                        : match(target, t.text());
            }
            if (n instanceof Words w) {
                return match(target, w.text());
            }
            if (n instanceof Prefix p) {
                return object("prefix", object(target, F.objectNode().put("value", normalize(text, p.prefix()))));
            }
            if (n instanceof Wildcard w) {
                return object("wildcard", object(target, F.objectNode().put("value", normalize(text, w.pattern()))));
            }
            if (n instanceof Regexp r) {
                return object(
                        "regexp",
                        object(
                                target,
                                F.objectNode()
                                        .put("value", normalize(text, r.pattern()))
                                        .put("flags", "ALL")
                                        .put("max_determinized_states", 10_000)));
            }
            Fuzzy f = (Fuzzy) n;
            String term = normalize(text, f.term());
            return object(
                    "fuzzy",
                    object(
                            target,
                            F.objectNode()
                                    .put("value", term)
                                    .put("fuzziness", edits(f.minSimilarity(), term))
                                    .put("prefix_length", 0)
                                    .put("max_expansions", 50)
                                    .put("transpositions", true)));
        }

        private ObjectNode bool(Bool b) {
            if (b.clauses().isEmpty()) {
                return matchNone();
            }
            ObjectNode bool = F.objectNode();
            boolean positive = false;
            int lastWords = -1;
            for (int i = 0; i < b.clauses().size(); i++) {
                if (b.clauses().get(i).node() instanceof Words) {
                    lastWords = i;
                }
            }
            for (int i = 0; i < b.clauses().size(); i++) {
                Clause c = b.clauses().get(i);
                if (c.node() instanceof Words w && c.occur() == QueryNode.Occur.MUST) {
                    // an AND reached back to the words: the classic parser requires their last word only
                    String[] words = w.text().trim().split("\\s+");
                    String field = mapped(field(w.field()));
                    for (int k = 0; k < words.length; k++) {
                        add(bool, k == words.length - 1 ? "must" : "should", match(field, words[k]));
                    }
                    positive = true;
                    continue;
                }
                ObjectNode q = node(c.node());
                if (q == null) {
                    continue;
                }
                switch (c.occur()) {
                    case MUST -> add(bool, "must", q);
                    case SHOULD -> add(bool, "should", q);
                    case MUST_NOT -> add(bool, "must_not", q);
                }
                positive |= c.occur() != QueryNode.Occur.MUST_NOT;
            }
            if (!positive) {
                return matchNone(); // only exclusions: nothing to exclude from, as in Lucene
            }
            if (bool.has("should") && !bool.has("must")) {
                bool.put("minimum_should_match", 1);
            }
            return object("bool", bool);
        }

        private ObjectNode range(String field, Range r) {
            if (TIMES.contains(field)) {
                long lo = r.lower() == null ? Long.MIN_VALUE : millis(r.lower());
                long hi = r.upper() == null ? Long.MAX_VALUE : millis(r.upper());
                if ((!r.lowerInclusive() && lo == Long.MAX_VALUE) || (!r.upperInclusive() && hi == Long.MIN_VALUE)) {
                    return matchNone();
                }
                lo = r.lowerInclusive() || lo == Long.MIN_VALUE ? lo : lo + 1;
                hi = r.upperInclusive() || hi == Long.MAX_VALUE ? hi : hi - 1;
                // OpenSearch's dates end long before a long does; every record's time lies within years 0000-9999
                lo = Math.max(lo, -TIME_LIMIT);
                hi = Math.min(hi, TIME_LIMIT);
                if (lo > hi) {
                    return matchNone();
                }
                return object(
                        "range",
                        object(
                                field,
                                F.objectNode()
                                        .put("format", "epoch_millis")
                                        .put("gte", lo)
                                        .put("lte", hi)));
            }
            if (field.startsWith(Fields.FIELDS_PREFIX)) {
                String name = field.substring(Fields.FIELDS_PREFIX.length());
                BigDecimal lo = RangeBounds.number(field, r.lower());
                BigDecimal hi = RangeBounds.number(field, r.upper());
                if ((r.lower() == null || r.lower().equals("*") || lo != null)
                        && (r.upper() == null || r.upper().equals("*") || hi != null)) {
                    String base = Fields.FIELDS_PREFIX + OpenSearchDocuments.fieldName(name);
                    ObjectNode bool = F.objectNode();
                    boolean loIn = r.lowerInclusive();
                    boolean hiIn = r.upperInclusive();
                    add(
                            bool,
                            "should",
                            NumericRange.whole(lo, loIn, hi, hiIn)
                                    .filter(w -> w.lo() <= w.hi())
                                    .map(w -> between(base + FieldKind.LONG.suffix(), w.lo(), w.hi()))
                                    .orElseGet(OpenSearchQueries::matchNone));
                    add(
                            bool,
                            "should",
                            NumericRange.decimal(lo, loIn, hi, hiIn)
                                    .filter(d -> d.lo() <= d.hi())
                                    .map(d -> between(base + FieldKind.DOUBLE.suffix(), d.lo(), d.hi()))
                                    .orElseGet(OpenSearchQueries::matchNone));
                    bool.put("minimum_should_match", 1);
                    return object("bool", bool);
                }
            }
            boolean text = FULL_TEXT.contains(field);
            ObjectNode bounds = F.objectNode();
            if (r.lower() != null && !r.lower().equals("*")) {
                bounds.put(r.lowerInclusive() ? "gte" : "gt", normalize(text, r.lower()));
            }
            if (r.upper() != null && !r.upper().equals("*")) {
                bounds.put(r.upperInclusive() ? "lte" : "lt", normalize(text, r.upper()));
            }
            return object("range", object(mapped(field), bounds));
        }

        private String field(String f) {
            return f == null ? defaultField : f;
        }
    }

    private static String fieldOf(QueryNode n) {
        if (n instanceof Exists e) {
            return e.field();
        }
        if (n instanceof Text t) {
            return t.field();
        }
        if (n instanceof Words w) {
            return w.field();
        }
        if (n instanceof Prefix p) {
            return p.field();
        }
        if (n instanceof Wildcard w) {
            return w.field();
        }
        if (n instanceof Regexp r) {
            return r.field();
        }
        return ((Fuzzy) n).field();
    }

    private static boolean known(String field) {
        return SCHEMA.contains(field)
                || (field.startsWith(Fields.FIELDS_PREFIX) && field.length() > Fields.FIELDS_PREFIX.length());
    }

    /** A field as the mapping names it: a structured field's name escaped. */
    static String mapped(String field) {
        if (field.startsWith(Fields.FIELDS_PREFIX)) {
            return Fields.FIELDS_PREFIX + OpenSearchDocuments.fieldName(field.substring(Fields.FIELDS_PREFIX.length()));
        }
        return field;
    }

    private static ObjectNode match(String field, String text) {
        return object("match", object(field, F.objectNode().put("query", text).put("operator", "or")));
    }

    private static String normalize(boolean fullText, String s) {
        return fullText ? s.toLowerCase(Locale.ROOT) : s;
    }

    /** Lucene's edits for a similarity as written after {@code ~}: whole numbers as edits, fractions by length. */
    private static int edits(float minSimilarity, String term) {
        if (minSimilarity >= 1f) {
            return (int) Math.min(minSimilarity, 2);
        }
        if (minSimilarity == 0f) {
            return 0;
        }
        int length = term.codePointCount(0, term.length());
        return Math.min((int) ((1d - minSimilarity) * length), 2);
    }

    private static ObjectNode between(String field, long lo, long hi) {
        ObjectNode bounds = F.objectNode();
        if (lo != Long.MIN_VALUE) {
            bounds.put("gte", lo);
        }
        if (hi != Long.MAX_VALUE) {
            bounds.put("lte", hi);
        }
        return object("range", object(field, bounds));
    }

    private static ObjectNode between(String field, double lo, double hi) {
        ObjectNode bounds = F.objectNode();
        if (lo != Double.NEGATIVE_INFINITY) {
            bounds.put("gte", lo);
        }
        if (hi != Double.POSITIVE_INFINITY) {
            bounds.put("lte", hi);
        }
        return object("range", object(field, bounds));
    }

    /** A time bound in epoch milliseconds (the parse already refused one that is not). */
    private static long millis(String s) {
        return RangeBounds.timeBound(s)
                .orElseThrow(() ->
                        new InvalidQuery("a time must be epoch milliseconds or RFC 3339, was \"" + s + "\"", null));
    }

    private static ObjectNode matchNone() {
        return object("match_none", F.objectNode());
    }

    private static void add(ObjectNode bool, String occur, ObjectNode q) {
        ArrayNode a = bool.has(occur) ? (ArrayNode) bool.get(occur) : bool.putArray(occur);
        a.add(q);
    }

    private static ObjectNode object(String key, ObjectNode value) {
        ObjectNode o = F.objectNode();
        o.set(key, value);
        return o;
    }
}
