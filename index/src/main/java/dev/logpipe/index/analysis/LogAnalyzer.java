package dev.logpipe.index.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;

/**
 * The log analyzer of the {@code message} field (docs/search.md#analyzer): compound tokens such as {@code co-9931},
 * {@code 10.0.0.1}, {@code api/v1/users}, {@code user@example.com} are indexed whole and by their parts, all lower-case.
 *
 * <p>{@link #forIndexing()} writes wholes and parts; {@link #forQuery()} reads a query term as wholes only, so
 * {@code CO-9931} looks up the whole token {@code co-9931} and {@code 9931} the part. Wildcard and prefix terms are
 * only lower-cased ({@link #normalize}), so {@code hello-ab12-*} matches the whole token {@code hello-ab12-17}.
 * Thread-safe, like every Lucene analyzer.
 */
public final class LogAnalyzer extends Analyzer {
    private final boolean parts;

    private LogAnalyzer(boolean parts) {
        this.parts = parts;
    }

    private static final LogAnalyzer INDEXING = forIndexing();
    private static final LogAnalyzer QUERY = forQuery();

    /** The tokens the index holds for a message: wholes and parts, lower-case, in order. */
    public static java.util.List<String> indexTokens(String text) {
        return tokens(INDEXING, text);
    }

    /** Takes tokens as characters in a buffer that is only valid during the call. */
    @FunctionalInterface
    public interface TokenSink {
        void token(char[] chars, int length);
    }

    /**
     * Hands {@code sink} the tokens {@link #indexTokens} answers, in the same order, without making a string of any
     * (the archiver hashes every token of a day's messages).
     */
    public static void forEachIndexToken(String text, TokenSink sink) {
        walk(INDEXING, text, (chars, length) -> {
            sink.token(chars, length);
            return true;
        });
    }

    /**
     * Whether the index holds {@code token} (lower-case, as {@link #indexTokens} gives them) for {@code text}: {@code
     * indexTokens(text).contains(token)} without a list or a string, stopping at the first match (an archive scan
     * asks this of every message of a block).
     */
    public static boolean hasIndexToken(String text, String token) {
        if (ascii(token) && !containsLowerCased(text, token)) {
            return false; // a token is a run of the text lower-cased character by character: not there, not held
        }
        return !walk(INDEXING, text, (chars, length) -> !same(chars, length, token));
    }

    /**
     * Whether {@code text}, each character lower-cased as the analyzer's {@code LowerCaseFilter} does (one character
     * to one: {@code İ} to {@code i}, the Kelvin sign to {@code k}), contains {@code token}.
     */
    private static boolean containsLowerCased(String text, String token) {
        int m = token.length();
        for (int i = 0, last = text.length() - m; i <= last; i++) {
            int j = 0;
            while (j < m && Character.toLowerCase(text.charAt(i + j)) == token.charAt(j)) {
                j++;
            }
            if (j == m) {
                return true;
            }
        }
        return false;
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 128) {
                return false;
            }
        }
        return true;
    }

    /** The tokens a query term of the message reads as: wholes, lower-case, in order. */
    public static java.util.List<String> queryTokens(String text) {
        return tokens(QUERY, text);
    }

    private static java.util.List<String> tokens(Analyzer analyzer, String text) {
        java.util.List<String> out = new java.util.ArrayList<>();
        walk(analyzer, text, (chars, length) -> out.add(new String(chars, 0, length)));
        return out;
    }

    /** Takes each token in turn; false stops the walk. */
    @FunctionalInterface
    private interface TokenVisitor {
        boolean next(char[] chars, int length);
    }

    /** Walks the tokens of {@code text}; true when it reached the end, false when the visitor stopped it. */
    private static boolean walk(Analyzer analyzer, String text, TokenVisitor visitor) {
        try (TokenStream ts = analyzer.tokenStream("message", text)) {
            org.apache.lucene.analysis.tokenattributes.CharTermAttribute term =
                    ts.addAttribute(org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class);
            ts.reset();
            boolean reachedEnd = true;
            while (ts.incrementToken()) {
                if (!visitor.next(term.buffer(), term.length())) {
                    reachedEnd = false;
                    break;
                }
            }
            ts.end();
            return reachedEnd;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("reading a string cannot fail", e);
        }
    }

    private static boolean same(char[] chars, int length, String token) {
        if (length != token.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (chars[i] != token.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    public static LogAnalyzer forIndexing() {
        return new LogAnalyzer(true);
    }

    public static LogAnalyzer forQuery() {
        return new LogAnalyzer(false);
    }

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        return new TokenStreamComponents(new LogTokenizer(parts));
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
        return new LowerCaseFilter(in);
    }
}
