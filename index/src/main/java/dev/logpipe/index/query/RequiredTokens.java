package dev.logpipe.index.query;

import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.schema.Fields;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The message tokens a query requires, so a tier that keeps a token filter per block (the archive) can skip blocks
 * that hold none without reading them: a list of groups, every match holding at least one token of each group.
 * {@code needlexyz} requires {@code [{needlexyz}]}; {@code "payment failed"} requires {@code [{payment}, {failed}]};
 * {@code a OR b} (single tokens) requires {@code [{a, b}]}. Tokens are as the query analyzer reads them (wholes,
 * lower-case), which the index holds for every record that matches. Anything it cannot read for sure (a negation, a
 * wildcard, a fuzzy term, words side by side, an unquoted term of several tokens) requires nothing, so pruning on the
 * answer never drops a record that could match.
 */
final class RequiredTokens {
    private RequiredTokens() {}

    static List<Set<String>> of(QueryNode n) {
        if (n instanceof Boost b) {
            return of(b.node());
        }
        if (n instanceof Text t) {
            return text(t);
        }
        if (!(n instanceof Bool b)) {
            return List.of();
        }
        List<Set<String>> out = new ArrayList<>();
        boolean anyRequired = false;
        for (Clause c : b.clauses()) {
            if (c.occur() == Occur.MUST) {
                anyRequired = true;
                out.addAll(of(c.node()));
            }
        }
        if (anyRequired) {
            return out;
        }
        // only SHOULD (and MUST_NOT): each match meets one SHOULD, so holds a token of that SHOULD's first group
        Set<String> anyOf = new LinkedHashSet<>();
        boolean anyShould = false;
        for (Clause c : b.clauses()) {
            if (c.occur() != Occur.SHOULD) {
                continue;
            }
            anyShould = true;
            List<Set<String>> r = of(c.node());
            if (r.isEmpty()) {
                return List.of();
            }
            anyOf.addAll(r.get(0));
        }
        return anyShould ? List.of(anyOf) : List.of();
    }

    private static List<Set<String>> text(Text t) {
        if (t.field() != null && !t.field().equals(Fields.MESSAGE)) {
            return List.of();
        }
        List<String> tokens = analyze(t.text());
        if (tokens.isEmpty() || !t.quoted() && tokens.size() != 1) {
            return List.of();
        }
        List<Set<String>> out = new ArrayList<>();
        tokens.forEach(token -> out.add(Set.of(token)));
        return out;
    }

    private static List<String> analyze(String text) {
        return LogAnalyzer.queryTokens(text);
    }
}
