package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Exists;
import dev.logpipe.index.query.QueryNode.Fuzzy;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Wildcard;
import dev.logpipe.index.query.QueryNode.Words;
import dev.logpipe.index.schema.Fields;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * A parsed query as a Lucene query over the schema: the tree is walked and each leaf built by
 * {@link SchemaQueryParser}'s own factories, so analysis, the typed ranges of {@code fields.*}, times and field names
 * are exactly those of the classic parser, and so is the result ({@code Query.equals}). A blank query is every
 * record. Thread-safe (a parser per call).
 */
public final class LuceneQueries {
    private LuceneQueries() {}

    /**
     * @param defaultField the field of a term without one ({@code message}; {@code raw} on dead-letter shards)
     * @throws InvalidQuery Lucene refuses to build it, worded as the classic parser words it
     */
    public static Query compile(String defaultField, ParsedQuery query) {
        Compiler c = new Compiler(new SchemaQueryParser(defaultField), defaultField);
        try {
            Query q = c.compile(query.root());
            return q != null ? q : new BooleanQuery.Builder().build();
        } catch (ParseException e) {
            throw new InvalidQuery("query does not parse: Cannot parse '" + query.text() + "': " + e.getMessage(), e);
        } catch (IndexSearcher.TooManyClauses e) {
            throw new InvalidQuery(
                    "query does not parse: Cannot parse '" + query.text() + "': too many boolean clauses", e);
        } catch (RuntimeException e) {
            throw new InvalidQuery("query does not parse: " + e.getMessage(), e);
        }
    }

    private record Compiler(SchemaQueryParser leaves, String defaultField) {
        /** Null, as the grammar's, when a text analyses to nothing (the parser has already left those out). */
        Query compile(QueryNode n) throws ParseException {
            if (n instanceof MatchAll) {
                return new MatchAllDocsQuery();
            }
            if (n instanceof Text t) {
                return t.quoted()
                        ? leaves.phrase(field(t.field()), t.text(), t.slop())
                        : leaves.getFieldQuery(field(t.field()), t.text(), false);
            }
            if (n instanceof Words w) {
                return leaves.getFieldQuery(field(w.field()), w.text(), false);
            }
            if (n instanceof Prefix p) {
                return leaves.getPrefixQuery(field(p.field()), p.prefix());
            }
            if (n instanceof Wildcard w) {
                return leaves.getWildcardQuery(field(w.field()), w.pattern());
            }
            if (n instanceof Regexp r) {
                return leaves.regexp(field(r.field()), r.pattern());
            }
            if (n instanceof Fuzzy f) {
                return leaves.fuzzy(field(f.field()), f.term(), f.minSimilarity());
            }
            if (n instanceof Range r) {
                return leaves.getRangeQuery(
                        field(r.field()), r.lower(), r.upper(), r.lowerInclusive(), r.upperInclusive());
            }
            if (n instanceof Boost b) {
                return boost(compile(b.node()), b.boost());
            }
            if (n instanceof Exists e) {
                return exists(e.field());
            }
            return bool((Bool) n);
        }

        /**
         * Every field a document has is read from what it already keeps per document: a keyword's and a time's doc
         * values, a full-text field's norms, a structured field's keyword doc values (under its escaped name). The
         * stored source has neither: no record "has" it as a searchable field.
         */
        private static Query exists(String field) {
            if (field.equals(Fields.SOURCE)) {
                return new MatchNoDocsQuery("the stored source is not a field");
            }
            if (field.startsWith(Fields.FIELDS_PREFIX)) {
                return new FieldExistsQuery(
                        RecordDocuments.keywordField(field.substring(Fields.FIELDS_PREFIX.length())));
            }
            return new FieldExistsQuery(field);
        }

        private static Query boost(Query q, float boost) {
            return q == null ? null : new BoostQuery(q, boost);
        }

        private Query bool(Bool b) throws ParseException {
            List<BooleanClause> clauses = new ArrayList<>(b.clauses().size());
            for (Clause c : b.clauses()) {
                if (c.node() instanceof Words w) {
                    int before = clauses.size();
                    leaves.addWords(clauses, compile(w));
                    if (c.occur() == QueryNode.Occur.MUST && clauses.size() > before) {
                        // an AND reached back to the words: the grammar required the last one it had added
                        BooleanClause last = clauses.get(clauses.size() - 1);
                        clauses.set(clauses.size() - 1, new BooleanClause(last.getQuery(), BooleanClause.Occur.MUST));
                    }
                    continue;
                }
                Query q = compile(c.node());
                if (q != null) {
                    clauses.add(new BooleanClause(q, occur(c.occur())));
                }
            }
            if (b.clauses().isEmpty()) {
                return new BooleanQuery.Builder().build();
            }
            if (clauses.isEmpty()) {
                return null;
            }
            if (clauses.size() == 2
                    && clauses.get(0).getQuery() instanceof MatchAllDocsQuery
                    && clauses.get(0).getOccur() == BooleanClause.Occur.MUST
                    && clauses.get(1).getOccur() == BooleanClause.Occur.MUST_NOT
                    && clauses.get(1).getQuery() instanceof TermQuery t
                    && t.getTerm().field().equals(Fields.RUNS_WHOLE)) {
                return new WithoutTermQuery(t.getTerm()); // the records a line filter must read (LineContains)
            }
            BooleanQuery.Builder q = new BooleanQuery.Builder();
            for (BooleanClause c : clauses) {
                q.add(c);
            }
            return q.build();
        }

        private String field(String f) {
            return f == null ? defaultField : f;
        }

        private static BooleanClause.Occur occur(QueryNode.Occur o) {
            return switch (o) {
                case MUST -> BooleanClause.Occur.MUST;
                case SHOULD -> BooleanClause.Occur.SHOULD;
                case MUST_NOT -> BooleanClause.Occur.MUST_NOT;
            };
        }
    }
}
