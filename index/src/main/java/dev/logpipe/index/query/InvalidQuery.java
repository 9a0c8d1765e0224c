package dev.logpipe.index.query;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Query text that does not parse, or that an engine refuses to build: the message says why (and where, when the
 * parser names a position), worded as users have always been told, so it can be answered as a 400.
 */
public final class InvalidQuery extends IllegalArgumentException {
    private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");
    private static final int MAX_PROBLEM_CHARS = 300;

    private final transient Problem problem;

    /** Why a query does not parse: the message's first line and the 1-based line and column, when it names one. */
    public record Problem(String message, Integer line, Integer column) {}

    public InvalidQuery(String message, Throwable cause) {
        super(message, cause);
        this.problem = problemOf(message);
    }

    private InvalidQuery(String message, Problem problem) {
        super(message);
        this.problem = problem;
    }

    /** The parser recursed past the stack: the text nests more than any query needs. */
    static InvalidQuery nestedTooDeeply() {
        String m = "query is nested too deeply";
        return new InvalidQuery(m, new Problem(m, null, null));
    }

    public Problem problem() {
        return problem;
    }

    private static Problem problemOf(String message) {
        String m = message == null ? "query does not parse" : message;
        Integer line = null;
        Integer column = null;
        Matcher x = POSITION.matcher(m);
        if (x.find()) {
            line = Integer.valueOf(x.group(1));
            column = Integer.valueOf(x.group(2));
        }
        int nl = m.indexOf('\n');
        String first = nl < 0 ? m : m.substring(0, nl);
        if (first.length() > MAX_PROBLEM_CHARS) {
            first = first.substring(0, MAX_PROBLEM_CHARS) + "...";
        }
        return new Problem(first, line, column);
    }
}
