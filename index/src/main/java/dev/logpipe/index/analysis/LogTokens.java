package dev.logpipe.index.analysis;

/**
 * The characters the log analyzer reads as tokens (docs/search.md#analyzer), for code that must reason about the
 * tokens of a text without analysing it: a token is a run of letters, digits, non-spacing marks, surrogates and the
 * joiners {@code . - / @ _}, without the joiners at its ends, lower-cased one character at a time, and a run longer
 * than {@link #MAX_TOKEN_CHARS} characters is cut into pieces (so no single token holds all of it).
 */
public final class LogTokens {
    /** The longest run indexed as one token. */
    public static final int MAX_TOKEN_CHARS = 255;

    private LogTokens() {}

    /** {@code . - / @ _}: a token character that joins the parts of a compound token. */
    public static boolean isJoiner(char c) {
        return c == '.' || c == '-' || c == '/' || c == '@' || c == '_';
    }

    /** A character of a token: every other character ends one. */
    public static boolean isTokenChar(char c) {
        if (c < 128) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || isJoiner(c);
        }
        return Character.isLetterOrDigit(c)
                || Character.isSurrogate(c)
                || Character.getType(c) == Character.NON_SPACING_MARK;
    }

    /**
     * True when no run of token characters in {@code text} is longer than {@link #MAX_TOKEN_CHARS}: each run is then
     * indexed as one whole token, and a substring of the text inside a run is inside that token. A character outside
     * ASCII counts as a token character here whatever this JVM's Unicode tables say (an engine on a newer JVM may read
     * an unassigned one as a letter and join two runs), so the answer holds on every engine. Free for a text of at most
     * that many characters.
     */
    public static boolean runsWhole(CharSequence text) {
        int n = text.length();
        if (n <= MAX_TOKEN_CHARS) {
            return true;
        }
        int run = 0;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 128 && !isTokenChar(c)) {
                run = 0;
            } else if (++run > MAX_TOKEN_CHARS) {
                return false;
            }
        }
        return true;
    }
}
