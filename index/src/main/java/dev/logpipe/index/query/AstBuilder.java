package dev.logpipe.index.query;

import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Exists;
import dev.logpipe.index.query.QueryNode.Fuzzy;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Wildcard;
import dev.logpipe.index.query.QueryNode.Words;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;

/**
 * Lucene's classic grammar, building our tree instead of Lucene queries: every factory the grammar calls returns a
 * carrier of a {@link QueryNode}, so the grammar, its error messages and positions, and its decisions (clause
 * occurrence, which words go together, a group of one clause being that clause) are the ones users have always had.
 * The checks the schema parser made at parse time stay at parse time ({@link LeafChecks}), and so does the cap on a
 * boolean's clauses ({@link IndexSearcher#getMaxClauseCount()}), counted as the engine will count them. Not
 * thread-safe: one per query.
 */
final class AstBuilder extends QueryParser {
    private static final KeywordAnalyzer UNUSED = new KeywordAnalyzer(); // every factory that analyses is overridden

    /** Which grammar: Lucene's classic one exactly, or logpipe's, which also reads a lone {@code *}. */
    enum Syntax {
        /** The classic grammar as it is: a lone {@code *} is refused ({@code AstEquivalenceTest}'s reference). */
        CLASSIC,
        /** {@code *} is every record and {@code field:*} is "the field has a value" (docs/search.md). */
        LOGPIPE
    }

    private final Syntax syntax;

    private AstBuilder(Syntax syntax) {
        super(null, UNUSED); // null: the default field, left to the engine
        this.syntax = syntax;
        setAllowLeadingWildcard(false);
    }

    /** @throws InvalidQuery the text does not parse, worded as the classic parser words it */
    static QueryNode build(String text, Syntax syntax) {
        return build(text, text, syntax);
    }

    /**
     * {@code parsed} is {@code written} with its operator words upper-cased ({@link OperatorWords}), of the same length:
     * a refusal quotes what the user wrote, at the same position.
     */
    static QueryNode build(String written, String parsed, Syntax syntax) {
        Query q;
        try {
            q = new AstBuilder(syntax).parse(parsed);
        } catch (ParseException e) {
            throw new InvalidQuery("query does not parse: " + quoting(e.getMessage(), written, parsed), e);
        } catch (RuntimeException e) { // a bound, a boost or an expression refused while building
            throw new InvalidQuery("query does not parse: " + quoting(e.getMessage(), written, parsed), e);
        }
        return node(q);
    }

    private static String quoting(String message, String written, String parsed) {
        if (message == null || written.equals(parsed)) {
            return message;
        }
        return message.replace("Cannot parse '" + parsed + "'", "Cannot parse '" + written + "'");
    }

    private static QueryNode node(Query q) {
        if (q instanceof Carrier c) {
            return c.node;
        }
        if (q instanceof BoostQuery b) { // the grammar boosts what a factory returned
            return new Boost(node(b.getQuery()), b.getBoost());
        }
        if (q instanceof BooleanQuery b && b.clauses().isEmpty()) { // every term analysed to nothing
            return new Bool(List.of());
        }
        throw new AssertionError("not built by this parser: " + q.getClass());
    }

    /** Also reads {@code field:>N}, {@code >=N}, {@code <N}, {@code <=N} as open-ended ranges. */
    @Override
    protected Query getFieldQuery(String field, String queryText, boolean quoted) throws ParseException {
        if (!quoted && queryText.length() > 1 && (queryText.charAt(0) == '>' || queryText.charAt(0) == '<')) {
            boolean inclusive = queryText.charAt(1) == '=';
            String bound = queryText.substring(inclusive ? 2 : 1);
            if (!bound.isEmpty()) {
                return queryText.charAt(0) == '>'
                        ? getRangeQuery(field, bound, null, inclusive, true)
                        : getRangeQuery(field, null, bound, true, inclusive);
            }
        }
        return text(field, queryText, quoted, 0);
    }

    @Override
    protected Query getFieldQuery(String field, String queryText, int slop) {
        return text(field, queryText, true, slop);
    }

    /** Null when analysis leaves no token: the grammar then drops the clause, as it always has. */
    private static Query text(String field, String text, boolean quoted, int slop) {
        int tokens = LeafChecks.tokens(field, text);
        if (tokens == 0) {
            return null;
        }
        if (!quoted && tokens > IndexSearcher.getMaxClauseCount()) { // one optional clause per token
            throw new IndexSearcher.TooManyClauses();
        }
        return new Carrier(new Text(field, text, quoted, slop), tokens);
    }

    @Override
    protected Query getRangeQuery(
            String field, String part1, String part2, boolean startInclusive, boolean endInclusive)
            throws ParseException {
        LeafChecks.range(field, part1, part2);
        return new Carrier(new Range(field, part1, part2, startInclusive, endInclusive), 1);
    }

    @Override
    protected Query getWildcardQuery(String field, String termStr) throws ParseException {
        if ("*".equals(field) && "*".equals(termStr)) {
            return new Carrier(new MatchAll(), 1);
        }
        if (syntax == Syntax.LOGPIPE && "*".equals(termStr)) {
            return new Carrier(field == null ? new MatchAll() : new Exists(field), 1);
        }
        if (termStr.startsWith("*") || termStr.startsWith("?")) {
            throw new ParseException("'*' or '?' not allowed as first character in WildcardQuery");
        }
        LeafChecks.wildcard(field, termStr);
        return new Carrier(new Wildcard(field, termStr), 1);
    }

    @Override
    protected Query getPrefixQuery(String field, String termStr) throws ParseException {
        if (termStr.startsWith("*")) {
            throw new ParseException("'*' not allowed as first character in PrefixQuery");
        }
        return new Carrier(new Prefix(field, termStr), 1);
    }

    @Override
    protected Query getRegexpQuery(String field, String termStr) {
        LeafChecks.regexp(field, termStr);
        return new Carrier(new Regexp(field, termStr), 1);
    }

    @Override
    protected Query getFuzzyQuery(String field, String termStr, float minSimilarity) {
        return new Carrier(new Fuzzy(field, termStr, minSimilarity), 1);
    }

    @Override
    protected Query newMatchAllDocsQuery() {
        return new Carrier(new MatchAll(), 1);
    }

    /** Words side by side: one clause of the group here, each word a clause of its own once analysed. */
    @Override
    protected void addMultiTermClauses(List<BooleanClause> clauses, Query q) {
        if (q == null) {
            return;
        }
        if (q instanceof Carrier c && c.node instanceof Text t && !t.quoted()) {
            q = new Carrier(new Words(t.field(), t.text()), c.clauses);
        }
        clauses.add(newBooleanClause(q, BooleanClause.Occur.SHOULD)); // or a range, from the > shorthand
    }

    @Override
    protected Query getBooleanQuery(List<BooleanClause> clauses) {
        if (clauses.isEmpty()) {
            return null;
        }
        long count = 0;
        List<Clause> out = new ArrayList<>(clauses.size());
        for (BooleanClause c : clauses) {
            count += c.getQuery() instanceof Carrier k && k.node instanceof Words ? k.clauses : 1;
            out.add(new Clause(occur(c.getOccur()), node(c.getQuery())));
        }
        if (count > IndexSearcher.getMaxClauseCount()) {
            throw new IndexSearcher.TooManyClauses();
        }
        return new Carrier(new Bool(out), 1);
    }

    private static Occur occur(BooleanClause.Occur o) {
        return switch (o) {
            case MUST -> Occur.MUST;
            case SHOULD -> Occur.SHOULD;
            case MUST_NOT -> Occur.MUST_NOT;
            case FILTER -> throw new AssertionError("the grammar never filters");
        };
    }

    /** A node where the grammar expects a Lucene query; {@code clauses}: what it adds to a boolean as words. */
    private static final class Carrier extends Query {
        final QueryNode node;
        final int clauses;

        Carrier(QueryNode node, int clauses) {
            this.node = node;
            this.clauses = clauses;
        }

        @Override
        public String toString(String field) {
            return node.toString();
        }

        @Override
        public void visit(QueryVisitor visitor) {
            visitor.visitLeaf(this);
        }

        @Override
        public boolean equals(Object o) {
            return sameClassAs(o) && node.equals(((Carrier) o).node);
        }

        @Override
        public int hashCode() {
            return 31 * classHash() + node.hashCode();
        }
    }
}
