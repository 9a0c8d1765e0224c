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
        try (TokenStream ts = INDEXING.tokenStream("message", text)) {
            org.apache.lucene.analysis.tokenattributes.CharTermAttribute term =
                    ts.addAttribute(org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                sink.token(term.buffer(), term.length());
            }
            ts.end();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("reading a string cannot fail", e);
        }
    }

    /** The tokens a query term of the message reads as: wholes, lower-case, in order. */
    public static java.util.List<String> queryTokens(String text) {
        return tokens(QUERY, text);
    }

    private static java.util.List<String> tokens(Analyzer analyzer, String text) {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream("message", text)) {
            org.apache.lucene.analysis.tokenattributes.CharTermAttribute term =
                    ts.addAttribute(org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(term.toString());
            }
            ts.end();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("reading a string cannot fail", e);
        }
        return out;
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
