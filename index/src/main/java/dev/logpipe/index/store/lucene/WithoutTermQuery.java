package dev.logpipe.index.store.lucene;

import java.io.IOException;
import java.util.Objects;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;

/**
 * The documents that do not hold a term, for a mark nearly every document has ({@code runs_whole}): a segment where
 * every document holds it has none, found from the term's document frequency without visiting a document, where
 * "everything but the term" as a boolean query walks every document of the segment to exclude them one by one.
 * Elsewhere the documents between the term's postings.
 */
final class WithoutTermQuery extends Query {
    private final Term term;

    WithoutTermQuery(Term term) {
        this.term = Objects.requireNonNull(term, "term");
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
        return new ConstantScoreWeight(this, boost) {
            @Override
            public Scorer scorer(LeafReaderContext context) throws IOException {
                LeafReader segment = context.reader();
                int maxDoc = segment.maxDoc();
                if (segment.docFreq(term) == maxDoc) {
                    return null; // deleted documents count in docFreq: every document, live or not, holds it
                }
                PostingsEnum holding = segment.postings(term, PostingsEnum.NONE);
                DocIdSetIterator without = holding == null ? DocIdSetIterator.all(maxDoc) : between(holding, maxDoc);
                return new ConstantScoreScorer(this, score(), scoreMode, without);
            }

            @Override
            public boolean isCacheable(LeafReaderContext context) {
                return true;
            }
        };
    }

    /** The documents of [0, maxDoc) that {@code holding} skips. */
    private static DocIdSetIterator between(PostingsEnum holding, int maxDoc) {
        return new DocIdSetIterator() {
            private int doc = -1;

            @Override
            public int docID() {
                return doc;
            }

            @Override
            public int nextDoc() throws IOException {
                return advance(doc + 1);
            }

            @Override
            public int advance(int target) throws IOException {
                for (int d = target; d < maxDoc; d++) {
                    int held = holding.docID() < d ? holding.advance(d) : holding.docID();
                    if (held != d) {
                        return doc = d;
                    }
                }
                return doc = NO_MORE_DOCS;
            }

            @Override
            public long cost() {
                return maxDoc;
            }
        };
    }

    @Override
    public void visit(QueryVisitor visitor) {
        visitor.visitLeaf(this);
    }

    @Override
    public String toString(String field) {
        return "-" + term;
    }

    @Override
    public boolean equals(Object other) {
        return sameClassAs(other) && term.equals(((WithoutTermQuery) other).term);
    }

    @Override
    public int hashCode() {
        return 31 * classHash() + term.hashCode();
    }
}
