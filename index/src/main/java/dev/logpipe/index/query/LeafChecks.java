package dev.logpipe.index.query;

import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.schema.Fields;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.BytesRefBuilder;
import org.apache.lucene.util.automaton.Operations;
import org.apache.lucene.util.automaton.RegExp;

/**
 * What the query language refuses, or decides, while parsing, so that a query is refused with the reason and at the
 * moment users have always had (before any shard is searched): time and numeric bounds, the log analyzer's view of
 * text (a term with no token is no clause; a term of more tokens than a boolean may hold is too many clauses), and
 * wildcards and regular expressions that do not compile. Full-text fields are those the log analyzer reads (docs/search.md);
 * every other field is a keyword, read whole.
 */
final class LeafChecks {
    static final Set<String> FULL_TEXT_FIELDS = Set.of(Fields.MESSAGE, Fields.DL_DETAIL, Fields.DL_RAW);

    private static final Analyzer TEXT = LogAnalyzer.forQuery();
    private static final Analyzer KEYWORD = new KeywordAnalyzer();
    private static final Pattern WILDCARD = Pattern.compile("(\\\\.)|([?*]+)");

    private LeafChecks() {}

    /** Whether {@code field} (null: the default field, full text on every kind of shard) is read by the log analyzer. */
    static boolean fullText(String field) {
        return field == null || FULL_TEXT_FIELDS.contains(field);
    }

    /** The tokens text on {@code field} analyses to: its log tokens on a full-text field, else one (the whole text). */
    static int tokens(String field, String text) {
        if (!fullText(field)) {
            return 1;
        }
        try (TokenStream ts = TEXT.tokenStream(Fields.MESSAGE, text)) {
            ts.reset();
            int n = 0;
            while (ts.incrementToken()) {
                n++;
            }
            ts.end();
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a string reader does not fail
        }
    }

    /**
     * A range's bounds can be read ({@link RangeBounds}): times on {@code event_time}/{@code observed_time}, and a
     * numeric bound's exponent on {@code fields.*}.
     */
    static void range(String field, String lower, String upper) throws ParseException {
        if (field == null) {
            return;
        }
        if (RangeBounds.time(field)) {
            if (lower != null) {
                RangeBounds.millis(lower);
            }
            if (upper != null) {
                RangeBounds.millis(upper);
            }
        } else if (field.startsWith(Fields.FIELDS_PREFIX)) {
            RangeBounds.number(field, lower);
            RangeBounds.number(field, upper);
        }
    }

    /**
     * {@link #range} for a range whose field a reading changed ({@code took_ms} to {@code fields.took_ms}).
     *
     * @throws InvalidQuery a bound cannot be read, worded as a parse refusal
     */
    static void resolvedRange(String field, String lower, String upper) {
        try {
            range(field, lower, upper);
        } catch (ParseException | IllegalArgumentException e) {
            throw new InvalidQuery("query does not parse: " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException the expression is not one, or is too complex to determinize */
    static void regexp(String field, String pattern) {
        new RegexpQuery(
                new Term(name(field), normalize(field, pattern)),
                RegExp.ALL,
                0,
                RegexpQuery.DEFAULT_PROVIDER,
                Operations.DEFAULT_DETERMINIZE_WORK_LIMIT,
                MultiTermQuery.CONSTANT_SCORE_REWRITE);
    }

    /** @throws RuntimeException the pattern is too complex to determinize */
    static void wildcard(String field, String pattern) {
        // as the classic parser reads it: escaped characters and wildcards kept, every other run normalized
        Matcher m = WILDCARD.matcher(pattern);
        BytesRefBuilder b = new BytesRefBuilder();
        int last = 0;
        while (m.find()) {
            if (m.start() > 0) {
                b.append(normalize(field, pattern.substring(last, m.start())));
            }
            b.append(new BytesRef(m.group()));
            last = m.end();
        }
        if (last < pattern.length()) {
            b.append(normalize(field, pattern.substring(last)));
        }
        new WildcardQuery(
                new Term(name(field), b.toBytesRef()),
                Operations.DEFAULT_DETERMINIZE_WORK_LIMIT,
                MultiTermQuery.CONSTANT_SCORE_REWRITE);
    }

    private static BytesRef normalize(String field, String text) {
        return (fullText(field) ? TEXT : KEYWORD).normalize(name(field), text);
    }

    private static String name(String field) {
        return field == null ? Fields.MESSAGE : field;
    }
}
