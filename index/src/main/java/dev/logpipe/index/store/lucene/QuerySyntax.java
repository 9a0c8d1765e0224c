package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Checks query text before any shard is searched, so a bad query is a clear 400 with a position. */
public final class QuerySyntax {
    private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");

    private QuerySyntax() {}

    /** Why a query does not parse: the parser's first line and the 1-based column, when it names one. */
    public record Problem(String message, Integer line, Integer column) {}

    /** Empty when {@code q} parses (a blank query matches everything). */
    public static Optional<Problem> check(String q) {
        if (q.isBlank()) {
            return Optional.empty();
        }
        try {
            ParsedQueries.parse(Fields.MESSAGE, q);
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
