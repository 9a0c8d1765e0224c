package dev.logpipe.index.query;

import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.schema.Fields;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Locale;
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
    /** The largest scale, either way, of a numeric bound: far past a double's 1e-324 and 1e308, like Jackson's cap. */
    static final int MAX_SCALE = 10_000;

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
     * A range's bounds can be read: times on {@code event_time}/{@code observed_time}, and a numeric bound's exponent
     * on {@code fields.*}.
     */
    static void range(String field, String lower, String upper) throws ParseException {
        if (field == null) {
            return;
        }
        if (field.equals(Fields.EVENT_TIME) || field.equals(Fields.OBSERVED_TIME)) {
            if (lower != null) {
                millis(lower);
            }
            if (upper != null) {
                millis(upper);
            }
        } else if (field.startsWith(Fields.FIELDS_PREFIX)) {
            scale(field, lower);
            scale(field, upper);
        }
    }

    /** @throws ParseException the bound is neither {@code *}, epoch milliseconds nor RFC 3339 */
    private static void millis(String s) throws ParseException {
        if (s.equals("*")) {
            return;
        }
        try {
            Long.parseLong(s);
        } catch (NumberFormatException e) {
            try {
                Instant.parse(s.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e2) {
                throw new ParseException("a time must be epoch milliseconds or RFC 3339, was \"" + s + "\"");
            }
        }
    }

    /**
     * @throws IllegalArgumentException a decimal bound's scale is past {@link #MAX_SCALE} either way: no field holds
     *     such a value, and exact arithmetic on it costs time and memory without bound
     */
    private static void scale(String field, String s) {
        if (s == null || s.equals("*")) {
            return;
        }
        BigDecimal n;
        try {
            n = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            return; // not a number: a keyword bound
        }
        if (Math.abs((long) n.scale()) > MAX_SCALE) {
            throw new IllegalArgumentException(
                    field + ": a numeric bound's exponent must be within ±" + MAX_SCALE + ", was " + s);
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
