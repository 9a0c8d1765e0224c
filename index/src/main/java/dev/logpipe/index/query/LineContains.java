package dev.logpipe.index.query;

import dev.logpipe.index.analysis.LogTokens;
import dev.logpipe.index.schema.Fields;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What the index can tell about the records whose message contains a literal (LogQL's {@code |= "text"}, case
 * sensitive): a query that matches every one of them and, mostly, few others, so a line filter reads the records the
 * index names instead of every record of the range. The caller still checks each record against the literal.
 *
 * <p>The literal's runs of ASCII token characters ({@link LogTokens}) are read as the analyzer would: a run with an
 * ASCII non-token character on both sides is a whole token of the message; a run that starts the literal may be the
 * end of a longer token, one that ends it the start of one, and one that is all of it any part of one. A character
 * outside ASCII ends a run without bounding it (whether it is a letter depends on the Unicode tables of the JVM that
 * indexed the record, which may not be this one), and never enters a term. Lower-cased and without its end joiners,
 * each run becomes a term, a suffix, a prefix or an infix of a term, all required. Such parts of terms hold only where
 * the message's run was indexed whole, so records without {@link Fields#RUNS_WHOLE} are matched too (a run of more than
 * {@link LogTokens#MAX_TOKEN_CHARS} characters is cut, and records written before the mark existed do not have it).
 * At most {@code maxClauses} runs are asked for, the longest first (a clause left out only widens the answer). Empty
 * when no run asks for anything: the index cannot narrow the search.
 */
public final class LineContains {
    /** Runs asked for one literal, at most, by default. */
    public static final int MAX_CLAUSES = 16;

    private LineContains() {}

    /** A query matching every record whose message contains {@code literal}; empty when it would match all. */
    public static Optional<QueryNode> candidates(String literal) {
        return candidates(literal, MAX_CLAUSES);
    }

    /** As {@link #candidates(String)}, asking for at most {@code maxClauses} runs. */
    public static Optional<QueryNode> candidates(String literal, int maxClauses) {
        record Part(QueryNode node, int length, boolean partial) {}
        List<Part> parts = new ArrayList<>();
        int n = literal.length();
        int i = 0;
        while (i < n) {
            if (!asciiToken(literal.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && asciiToken(literal.charAt(i))) {
                i++;
            }
            String term = term(literal, start, i);
            if (term == null) {
                continue;
            }
            boolean startsToken = start > 0 && literal.charAt(start - 1) < 128;
            boolean endsToken = i < n && literal.charAt(i) < 128;
            if (startsToken && endsToken) {
                parts.add(new Part(new QueryNode.Text(Fields.MESSAGE, term, true, 0), term.length(), false));
            } else if (startsToken) {
                parts.add(new Part(new QueryNode.Prefix(Fields.MESSAGE, term), term.length(), true));
            } else {
                String pattern = ".*" + escaped(term) + (endsToken ? "" : ".*");
                parts.add(new Part(new QueryNode.Regexp(Fields.MESSAGE, pattern), term.length(), true));
            }
        }
        if (parts.size() > maxClauses) {
            parts.sort(Comparator.comparingInt(Part::length).reversed());
            parts = parts.subList(0, Math.max(0, maxClauses));
        }
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        List<QueryNode.Clause> required = new ArrayList<>();
        boolean partial = false;
        for (Part p : parts) {
            required.add(new QueryNode.Clause(QueryNode.Occur.MUST, p.node()));
            partial |= p.partial();
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

    private static boolean asciiToken(char c) {
        return c < 128 && LogTokens.isTokenChar(c);
    }

    /** The run [start, end) as the analyzer indexes it: lower-cased, end joiners dropped; null when it asks nothing. */
    private static String term(String literal, int start, int end) {
        if (end - start > LogTokens.MAX_TOKEN_CHARS) {
            return null; // such a run is cut into pieces: no one token holds it
        }
        StringBuilder b = new StringBuilder(end - start);
        for (int k = start; k < end; k++) {
            b.append(Character.toLowerCase(literal.charAt(k)));
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

    /** Every character but an ASCII letter or digit escaped, for Lucene's regular expression syntax. */
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
