package dev.logpipe.index.query;

import dev.logpipe.index.analysis.LogTokens;
import dev.logpipe.index.schema.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the index can tell about the records whose message contains a literal (LogQL's {@code |= "text"}, case
 * sensitive): a query that matches every one of them and, mostly, few others, so a line filter reads the records the
 * index names instead of every record of the range. The caller still checks each record against the literal.
 *
 * <p>The literal's runs of token characters ({@link LogTokens}) are read as the analyzer would: a run with a
 * non-token character on both sides is a whole token of the message; a run that starts the literal may be the end of
 * a longer token, one that ends it the start of one, and one that is all of it any part of one. Lower-cased and without
 * its end joiners, each run becomes a term, a suffix, a prefix or an infix of a term, all required. Such parts of terms
 * hold only where the message's run was indexed whole, so records without {@link Fields#RUNS_WHOLE} are matched
 * too (a run of more than {@link LogTokens#MAX_TOKEN_CHARS} characters is cut, and records written before the mark
 * existed do not have it). A run with a surrogate (a letter outside the BMP, lower-cased differently by the engines)
 * or longer than a token asks for nothing. Empty when no run asks for anything: the index cannot narrow the search.
 */
public final class LineContains {
    private LineContains() {}

    /** A query matching every record whose message contains {@code literal}; empty when it would match all. */
    public static Optional<QueryNode> candidates(String literal) {
        List<QueryNode.Clause> required = new ArrayList<>();
        boolean partial = false;
        int n = literal.length();
        int i = 0;
        while (i < n) {
            if (!LogTokens.isTokenChar(literal.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && LogTokens.isTokenChar(literal.charAt(i))) {
                i++;
            }
            String term = term(literal, start, i);
            if (term == null) {
                continue;
            }
            boolean startsToken = start > 0;
            boolean endsToken = i < n;
            QueryNode node;
            if (startsToken && endsToken) {
                node = new QueryNode.Text(Fields.MESSAGE, term, true, 0);
            } else if (startsToken) {
                node = new QueryNode.Prefix(Fields.MESSAGE, term);
                partial = true;
            } else {
                node = new QueryNode.Regexp(Fields.MESSAGE, ".*" + escaped(term) + (endsToken ? "" : ".*"));
                partial = true;
            }
            required.add(new QueryNode.Clause(QueryNode.Occur.MUST, node));
        }
        if (required.isEmpty()) {
            return Optional.empty();
        }
        QueryNode all = required.size() == 1 ? required.get(0).node() : new QueryNode.Bool(required);
        if (!partial) {
            return Optional.of(all);
        }
        QueryNode notWhole = new QueryNode.Bool(List.of(
                new QueryNode.Clause(QueryNode.Occur.MUST, new QueryNode.MatchAll()),
                new QueryNode.Clause(
                        QueryNode.Occur.MUST_NOT, new QueryNode.Text(Fields.RUNS_WHOLE, Fields.MESSAGE, true, 0))));
        return Optional.of(new QueryNode.Bool(List.of(
                new QueryNode.Clause(QueryNode.Occur.SHOULD, all),
                new QueryNode.Clause(QueryNode.Occur.SHOULD, notWhole))));
    }

    /** The run [start, end) as the analyzer indexes it: lower-cased, end joiners dropped; null when it asks nothing. */
    private static String term(String literal, int start, int end) {
        if (end - start > LogTokens.MAX_TOKEN_CHARS) {
            return null; // such a run is cut into pieces: no one token holds it
        }
        StringBuilder b = new StringBuilder(end - start);
        for (int k = start; k < end; k++) {
            char c = literal.charAt(k);
            if (Character.isSurrogate(c)) {
                return null;
            }
            b.append(Character.toLowerCase(c));
        }
        int from = 0;
        int to = b.length();
        while (from < to && LogTokens.isJoiner(b.charAt(from))) {
            from++;
        }
        while (to > from && LogTokens.isJoiner(b.charAt(to - 1))) {
            to--;
        }
        return from == to ? null : b.substring(from, to);
    }

    /** Every character but a letter or digit escaped, for Lucene's regular expression syntax. */
    private static String escaped(String term) {
        StringBuilder b = new StringBuilder(term.length() * 2);
        for (int k = 0; k < term.length(); k++) {
            char c = term.charAt(k);
            if (!Character.isLetterOrDigit(c)) {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }
}
