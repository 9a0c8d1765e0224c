package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The syntax check the query service ran before the query language had a tree of its own (text parsed by
 * {@link SchemaQueryParser}), frozen here so {@link AstEquivalenceTest} compares {@code ParsedQuery.parse} against it.
 */
final class TodaysQuerySyntax {
    private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");

    private TodaysQuerySyntax() {}

    /** Why a query does not parse: the parser's first line and the 1-based column, when it names one. */
    record Problem(String message, Integer line, Integer column) {}

    /** Empty when {@code q} parses (a blank query matches everything). */
    static Optional<Problem> check(String q) {
        if (q.isBlank()) {
            return Optional.empty();
        }
        try {
            new SchemaQueryParser(Fields.MESSAGE).parseQuery(q);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(problem(e));
        } catch (StackOverflowError e) { // the parser recurses per nesting level
            return Optional.of(new Problem("query is nested too deeply", null, null));
        }
    }

    static Problem problem(IllegalArgumentException e) {
        String m = e.getMessage() == null ? "query does not parse" : e.getMessage();
        Integer line = null;
        Integer column = null;
        Matcher x = POSITION.matcher(m);
        if (x.find()) {
            line = Integer.valueOf(x.group(1));
            column = Integer.valueOf(x.group(2));
        }
        int nl = m.indexOf('\n');
        String first = nl < 0 ? m : m.substring(0, nl);
        if (first.length() > 300) {
            first = first.substring(0, 300) + "...";
        }
        return new Problem(first, line, column);
    }
}
