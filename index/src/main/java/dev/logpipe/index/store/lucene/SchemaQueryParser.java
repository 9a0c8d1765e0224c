package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.RangeBounds;
import dev.logpipe.index.schema.Fields;
import java.math.BigDecimal;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Lucene classic syntax over the schema (default field {@code message}): ranges on {@code fields.<name>} match the
 * numeric form when the bounds are numbers ({@code fields.took_ms:>500}, {@code fields.ratio:[0.5 TO 1]}) and the
 * keyword form otherwise; ranges on {@code event_time}/{@code observed_time} take epoch milliseconds or RFC 3339.
 * Not thread-safe (Lucene's parser is not): one per query.
 */
final class SchemaQueryParser extends QueryParser {
    /** With another default field (dead-letter shards search {@code raw} by default). */
    SchemaQueryParser(String defaultField) {
        super(defaultField, IndexSchema.queryAnalyzer());
        setAllowLeadingWildcard(false);
    }

    /**
     * The whole text through the classic grammar: the path searches took before the query language had its own tree,
     * kept so {@code AstEquivalenceTest} compares {@link LuceneQueries} against it (nothing else parses text here).
     *
     * @throws IllegalArgumentException the query does not parse; the message says where
     */
    Query parseQuery(String q) {
        try {
            return parse(q);
        } catch (ParseException e) {
            throw new IllegalArgumentException("query does not parse: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("query does not parse: " + e.getMessage(), e);
        }
    }

    @Override
    protected Query getRangeQuery(
            String field, String part1, String part2, boolean startInclusive, boolean endInclusive)
            throws ParseException {
        if (RangeBounds.time(field)) {
            long lo = part1 == null ? Long.MIN_VALUE : RangeBounds.millis(part1);
            long hi = part2 == null ? Long.MAX_VALUE : RangeBounds.millis(part2);
            if ((!startInclusive && lo == Long.MAX_VALUE) || (!endInclusive && hi == Long.MIN_VALUE)) {
                return new MatchNoDocsQuery("an exclusive bound past the last millisecond"); // lo + 1 would wrap
            }
            return LongPoint.newRangeQuery(
                    field,
                    startInclusive || lo == Long.MIN_VALUE ? lo : lo + 1,
                    endInclusive || hi == Long.MAX_VALUE ? hi : hi - 1);
        }
        if (field.startsWith(Fields.FIELDS_PREFIX)) {
            String name = field.substring(Fields.FIELDS_PREFIX.length());
            BigDecimal lo = RangeBounds.number(field, part1);
            BigDecimal hi = RangeBounds.number(field, part2);
            if ((part1 == null || part1.equals("*") || lo != null)
                    && (part2 == null || part2.equals("*") || hi != null)) {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                b.add(NumericBounds.longRange(name, lo, startInclusive, hi, endInclusive), BooleanClause.Occur.SHOULD);
                b.add(
                        NumericBounds.doubleRange(name, lo, startInclusive, hi, endInclusive),
                        BooleanClause.Occur.SHOULD);
                return b.build();
            }
            return super.getRangeQuery(RecordDocuments.keywordField(name), part1, part2, startInclusive, endInclusive);
        }
        return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
    }

    /** Also reads {@code field:>N}, {@code >=N}, {@code <N}, {@code <=N} as open-ended ranges. */
    @Override
    protected Query getFieldQuery(String field, String queryText, boolean quoted) throws ParseException {
        if (!quoted
                && field != null
                && queryText.length() > 1
                && (queryText.charAt(0) == '>' || queryText.charAt(0) == '<')) {
            boolean inclusive = queryText.charAt(1) == '=';
            String bound = queryText.substring(inclusive ? 2 : 1);
            if (!bound.isEmpty()) {
                return queryText.charAt(0) == '>'
                        ? getRangeQuery(field, bound, null, inclusive, true)
                        : getRangeQuery(field, null, bound, true, inclusive);
            }
        }
        return super.getFieldQuery(mapped(field), queryText, quoted);
    }

    @Override
    protected Query getWildcardQuery(String field, String termStr) throws ParseException {
        return super.getWildcardQuery(mapped(field), termStr);
    }

    @Override
    protected Query getPrefixQuery(String field, String termStr) throws ParseException {
        return super.getPrefixQuery(mapped(field), termStr);
    }

    /** A quoted phrase and its slop, as the grammar builds it ({@link LuceneQueries} compiles a tree through these). */
    Query phrase(String field, String text, int slop) throws ParseException {
        return getFieldQuery(field, text, slop);
    }

    /** A term within an edit distance, as the grammar builds it. */
    Query fuzzy(String field, String term, float minSimilarity) throws ParseException {
        return getFuzzyQuery(field, term, minSimilarity);
    }

    /** A regular expression, as the grammar builds it. */
    Query regexp(String field, String pattern) throws ParseException {
        return getRegexpQuery(field, pattern);
    }

    /** Adds the analysed query of words side by side to a group's clauses, one clause per word, as the grammar does. */
    void addWords(List<BooleanClause> clauses, Query words) {
        addMultiTermClauses(clauses, words);
    }

    /** {@code fields.a#b} is stored under an escaped name; every other field as typed. */
    private static String mapped(String field) {
        if (field != null && field.startsWith(Fields.FIELDS_PREFIX) && field.indexOf('#') >= 0) {
            return RecordDocuments.keywordField(field.substring(Fields.FIELDS_PREFIX.length()));
        }
        return field;
    }
}
