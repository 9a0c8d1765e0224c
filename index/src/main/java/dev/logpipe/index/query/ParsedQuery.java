package dev.logpipe.index.query;

import dev.logpipe.index.query.QueryNode.MatchAll;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The user's query, parsed once per request: its text (for the cursor's binding and the audit log), its syntax tree,
 * which each engine translates, and the bare field names it resolved to structured fields. Classic syntax with
 * logpipe's readings (docs/search.md): a blank text, {@code *} and {@code *:*} match everything, {@code field:*} is
 * "the field has a value", lowercase {@code and}/{@code or}/{@code not} between clauses are operators, a purely
 * negative query is everything except, {@code level} values are matched as records hold them (normalized), and a bare
 * name that is not a top-level field means {@code fields.<name>}.
 *
 * @param resolvedFields each bare name the text used to the field it means ({@code took_ms} to
 *     {@code fields.took_ms}), in the order written; empty when it named none
 */
public record ParsedQuery(String text, QueryNode root, Map<String, String> resolvedFields) {
    public static final ParsedQuery ALL = new ParsedQuery("", new MatchAll());

    public ParsedQuery {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(root, "root");
        resolvedFields =
                resolvedFields.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(resolvedFields));
    }

    /** A tree as it is, no name resolved. */
    public ParsedQuery(String text, QueryNode root) {
        this(text, root, Map.of());
    }

    /** @throws InvalidQuery the text does not parse; its {@link InvalidQuery#problem()} says why and where */
    public static ParsedQuery parse(String text) {
        if (text.isBlank()) {
            return new ParsedQuery(text, new MatchAll());
        }
        try {
            QueryNode classic = AstBuilder.build(text, OperatorWords.uppercase(text), AstBuilder.Syntax.LOGPIPE);
            Readings.Read read = Readings.of(classic);
            return new ParsedQuery(text, read.root(), read.resolved());
        } catch (StackOverflowError e) { // the grammar recurses per nesting level
            throw InvalidQuery.nestedTooDeeply();
        }
    }

    /** The fields the query names, in the order written (after resolution); not the default field nor {@code *}. */
    public Set<String> fieldNames() {
        Set<String> out = new LinkedHashSet<>();
        names(root, out);
        return out;
    }

    private static void names(QueryNode n, Set<String> out) {
        String f = null;
        if (n instanceof QueryNode.Bool b) {
            b.clauses().forEach(c -> names(c.node(), out));
        } else if (n instanceof QueryNode.Boost b) {
            names(b.node(), out);
        } else if (n instanceof QueryNode.Text t) {
            f = t.field();
        } else if (n instanceof QueryNode.Words w) {
            f = w.field();
        } else if (n instanceof QueryNode.Prefix p) {
            f = p.field();
        } else if (n instanceof QueryNode.Wildcard w) {
            f = w.field();
        } else if (n instanceof QueryNode.Regexp r) {
            f = r.field();
        } else if (n instanceof QueryNode.Fuzzy z) {
            f = z.field();
        } else if (n instanceof QueryNode.Range r) {
            f = r.field();
        } else if (n instanceof QueryNode.Exists e) {
            f = e.field();
        }
        if (f != null && !f.equals("*")) {
            out.add(f);
        }
    }

    /**
     * Groups of message tokens (as the query analyzer reads them) of which every match holds at least one token of
     * each group; empty when the query pins none (for a tier that skips blocks by a token filter).
     */
    public java.util.List<Set<String>> requiredMessageTokens() {
        return RequiredTokens.of(root);
    }

    /** Label name to the values one of which every match holds; empty when the query does not pin any. */
    public Map<String, Set<String>> requiredLabels() {
        return RequiredLabels.of(root);
    }
}
