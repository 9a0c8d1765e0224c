package dev.logpipe.index.query;

import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Words;
import dev.logpipe.index.schema.Fields;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.util.BytesRef;

/**
 * The label values a query requires, so a planner can skip shards whose metadata lacks them without opening them:
 * {@code level:ERROR AND service:api} requires level ERROR and service api; {@code level:ERROR OR level:FATAL}
 * requires level in {ERROR, FATAL}. Anything it cannot read for sure (a negation, a wildcard, a boost, a mix) requires
 * nothing, so pruning on the answer never drops a shard that could match.
 */
final class RequiredLabels {
    private RequiredLabels() {}

    static Map<String, Set<String>> of(QueryNode n) {
        String value = labelValue(n);
        if (value != null) {
            return Map.of(field(n), Set.of(value));
        }
        if (!(n instanceof Bool b)) {
            return Map.of();
        }
        Map<String, Set<String>> out = new HashMap<>();
        boolean anyRequired = false;
        for (Clause c : b.clauses()) {
            if (c.occur() == Occur.MUST) {
                anyRequired = true;
                of(c.node()).forEach((k, v) -> out.merge(k, v, RequiredLabels::intersect));
            }
        }
        if (anyRequired) {
            return out;
        }
        // only SHOULD (and MUST_NOT) clauses: a disjunction; readable when every SHOULD names the same label
        String field = null;
        Set<String> values = new HashSet<>();
        for (Clause c : b.clauses()) {
            if (c.occur() != Occur.SHOULD) {
                continue;
            }
            Map<String, Set<String>> r = of(c.node());
            if (r.size() != 1) {
                return Map.of();
            }
            String f = r.keySet().iterator().next();
            if (field != null && !field.equals(f)) {
                return Map.of();
            }
            field = f;
            values.addAll(r.get(f));
        }
        return field == null ? Map.of() : Map.of(field, values);
    }

    /** The value a text on a label field stands for: a label is a keyword, so the whole text, as a UTF-8 term. */
    private static String labelValue(QueryNode n) {
        String field = field(n);
        if (field == null || !Fields.LABELS.contains(field)) {
            return null;
        }
        String text = n instanceof Text t ? t.text() : ((Words) n).text();
        return new BytesRef(text).utf8ToString(); // an unpaired surrogate is stored as U+FFFD
    }

    private static String field(QueryNode n) {
        if (n instanceof Text t) {
            return t.field();
        }
        return n instanceof Words w ? w.field() : null;
    }

    private static Set<String> intersect(Set<String> a, Set<String> b) {
        Set<String> s = new HashSet<>(a);
        s.retainAll(b);
        return s;
    }
}
