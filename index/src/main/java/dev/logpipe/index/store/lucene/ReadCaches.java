package dev.logpipe.index.store.lucene;

import dev.logpipe.index.store.read.KeptReads;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LRUQueryCache;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryCachingPolicy;

/**
 * What a reading side keeps between requests, each bounded in bytes: terms' counts per minute for histograms ({@link
 * TermMinutes}), and the documents a walk of a term dictionary found in a segment ({@link #termWalks}).
 *
 * <p>A wildcard, a regular expression, a prefix or a LogQL line filter's infix ({@code |= "needle"} is
 * {@code *needle*} on the message's terms) costs a walk of every term of the field in every segment, on every request;
 * Lucene's query cache keeps the documents found per segment (least recently used out, deletions applied when used),
 * and this policy gives it exactly those queries, from their first use: a dashboard or a person asks the same again,
 * and an exact term, a range or a label costs less to read than to keep.
 *
 * @param minutes a term's counts per minute
 * @param termWalks the documents of term walks
 */
record ReadCaches(TermMinutes minutes, LRUQueryCache termWalks) implements KeptReads {
    /** Queries whose documents a walk of a term dictionary finds. */
    static final QueryCachingPolicy TERM_WALKS = new QueryCachingPolicy() {
        @Override
        public void onUse(Query query) {}

        @Override
        public boolean shouldCache(Query query) {
            // rewritten, a wildcard or regular expression is a constant-score wrapper of its MultiTermQuery
            return query instanceof MultiTermQuery
                    || query.getClass().getSimpleName().startsWith("MultiTermQueryConstantScore");
        }
    };

    /** Bytes the documents of term walks may hold. */
    static final long TERM_WALK_BYTES = 32L << 20;

    /** A query side's (committed shards, or the standalone's live ones): 8 MiB of minutes, 32 MiB of walks. */
    static ReadCaches forQueries() {
        // every segment (a day shard's are large), and never skipped for costing more than the rest of the query:
        // a walk's estimated cost is every posting of the field, far above what it finds
        return new ReadCaches(
                new TermMinutes(TermMinutes.DEFAULT_MAX_BYTES),
                new LRUQueryCache(1_000, TERM_WALK_BYTES, leaf -> true, Float.POSITIVE_INFINITY));
    }

    /** Makes {@code searcher} keep term walks here. */
    IndexSearcher keepTermWalks(IndexSearcher searcher) {
        searcher.setQueryCache(termWalks);
        searcher.setQueryCachingPolicy(TERM_WALKS);
        return searcher;
    }

    @Override
    public long termMinutesBytes() {
        return minutes.bytes();
    }

    @Override
    public long termMinutesBuilds() {
        return minutes.builds();
    }

    @Override
    public long termWalkBytes() {
        return termWalks.ramBytesUsed();
    }

    @Override
    public long termWalkHits() {
        return termWalks.getHitCount();
    }

    @Override
    public long termWalkMisses() {
        return termWalks.getMissCount();
    }
}
