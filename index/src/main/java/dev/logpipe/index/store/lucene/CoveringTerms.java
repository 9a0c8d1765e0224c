package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.read.ShardQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * A query that is a conjunction of exact terms ({@code region:"eu-west-1" AND service:api}, a LogQL selector of
 * {@code =} matchers; a match-all is the conjunction of none) matches every document of a segment in which each of its
 * terms is in every document (docFreq equal to maxDoc; docFreq counts deleted documents too, so every live one holds
 * them). Such a segment can be counted as a match-all: from its points tree ({@link PointHistogram}).
 */
final class CoveringTerms {
    private CoveringTerms() {}

    /** Adds the terms {@code q} is the conjunction of to {@code into}; false (into unusable) when it is anything else. */
    static boolean collect(Query q, List<Term> into) {
        if (q instanceof TermQuery t) {
            into.add(t.getTerm());
            return true;
        }
        if (q instanceof MatchAllDocsQuery) {
            return true;
        }
        if (q instanceof ConstantScoreQuery c) {
            return collect(c.getQuery(), into);
        }
        if (q instanceof BooleanQuery b) {
            if (b.clauses().isEmpty() || b.getMinimumNumberShouldMatch() > 0) {
                return false; // an empty conjunction here matches nothing
            }
            for (BooleanClause c : b.clauses()) {
                boolean required =
                        c.getOccur() == BooleanClause.Occur.MUST || c.getOccur() == BooleanClause.Occur.FILTER;
                if (!required || !collect(c.getQuery(), into)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * The terms of {@code terms} and {@code tenant} that not every document of the segment holds, in that order (one
     * lookup each): none when the segment is covered, and what a query must still walk in it otherwise.
     */
    static List<Term> notInEveryDocument(LeafReader leaf, List<Term> terms, Term tenant) throws IOException {
        int maxDoc = leaf.maxDoc();
        List<Term> out = new ArrayList<>(2);
        for (Term t : terms) {
            if (leaf.docFreq(t) != maxDoc) {
                out.add(t);
            }
        }
        if (leaf.docFreq(tenant) != maxDoc) {
            out.add(tenant);
        }
        return out;
    }

    /**
     * A conjunction of exact terms on one segment: the terms (and the tenant's) that not every document of the segment
     * holds ({@link #notInEveryDocument}), with the time range. It matches there what the whole query matches, without
     * walking the postings of a term every document has (a region or a service a day's segment holds throughout).
     */
    static Query uncovered(List<Term> rest, ShardQuery q) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (Term t : rest) {
            b.add(new TermQuery(t), BooleanClause.Occur.FILTER);
        }
        b.add(LongPoint.newRangeQuery(Fields.EVENT_TIME, q.fromMillis(), q.toMillis() - 1), BooleanClause.Occur.FILTER);
        return b.build();
    }
}
