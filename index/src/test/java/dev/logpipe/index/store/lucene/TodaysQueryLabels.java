package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * The label pruning the query service used before the query language had a tree of its own, read off the Lucene query
 * {@link SchemaQueryParser} builds; frozen here so {@link AstEquivalenceTest} compares {@code requiredLabels()} with it.
 * The label values a query requires, so a planner can skip shards whose metadata lacks them without opening them:
 * {@code level:ERROR AND service:api} requires level ERROR and service api; {@code level:ERROR OR level:FATAL}
 * requires level in {ERROR, FATAL}. Anything it cannot read for sure (a negation, a wildcard, a mix) requires nothing,
 * so pruning on the answer never drops a shard that could match.
 */
final class TodaysQueryLabels {
    private TodaysQueryLabels() {}

    /** Label name to the values one of which every match holds; empty for a blank or unparsable query. */
    static Map<String, Set<String>> required(String q) {
        if (q.isBlank()) {
            return Map.of();
        }
        try {
            return required(new SchemaQueryParser(Fields.MESSAGE).parseQuery(q));
        } catch (IllegalArgumentException | StackOverflowError e) {
            return Map.of();
        }
    }

    static Map<String, Set<String>> required(Query q) {
        if (q instanceof TermQuery t && Fields.LABELS.contains(t.getTerm().field())) {
            return Map.of(t.getTerm().field(), Set.of(t.getTerm().text()));
        }
        if (!(q instanceof BooleanQuery b)) {
            return Map.of();
        }
        Map<String, Set<String>> out = new HashMap<>();
        boolean anyRequired = false;
        for (BooleanClause c : b.clauses()) {
            if (c.getOccur() == BooleanClause.Occur.MUST || c.getOccur() == BooleanClause.Occur.FILTER) {
                anyRequired = true;
                required(c.getQuery()).forEach((k, v) -> out.merge(k, v, TodaysQueryLabels::intersect));
            }
        }
        if (anyRequired || b.getMinimumNumberShouldMatch() > 1) {
            return out;
        }
        // only SHOULD (and MUST_NOT) clauses: a disjunction; readable when every SHOULD names the same label
        String field = null;
        Set<String> values = new HashSet<>();
        for (BooleanClause c : b.clauses()) {
            if (c.getOccur() != BooleanClause.Occur.SHOULD) {
                continue;
            }
            Map<String, Set<String>> r = required(c.getQuery());
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

    private static Set<String> intersect(Set<String> a, Set<String> b) {
        Set<String> s = new HashSet<>(a);
        s.retainAll(b);
        return s;
    }
}
