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
