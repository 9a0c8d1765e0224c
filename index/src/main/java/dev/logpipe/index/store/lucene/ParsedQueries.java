package dev.logpipe.index.store.lucene;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.util.Accountable;
import org.apache.lucene.util.RamUsageEstimator;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * Query text parsed once per request instead of once per shard (and once more for the syntax check and label
 * pruning): a small cache of parsed queries by default field and text. A parsed Lucene query is immutable and
 * thread-safe, and parsing depends on nothing but the text and the default field, so a cached one is the same query.
 * Bounded by memory, not only by a count: each entry is weighed in bytes (its key, its terms, and what Lucene reports
 * for its automata: a 50-character regular expression or wildcard can compile to megabytes), the cache is cleared
 * before it would exceed {@link #MAX_BYTES} or {@link #MAX} entries, and a query heavier than {@link #MAX_ENTRY_BYTES}
 * is not cached at all. Failures are not cached.
 */
final class ParsedQueries {
    static final int MAX = 512;
    static final long MAX_BYTES = 16L * 1024 * 1024;
    static final long MAX_ENTRY_BYTES = MAX_BYTES / 16;
    /** What a clause or a term costs beyond its bytes (object headers, arrays, the BooleanClause). */
    private static final long NODE_BYTES = 64;

    private static final Map<String, Query> CACHE = new ConcurrentHashMap<>();
    private static long bytes; // guarded by CACHE's monitor; only misses take it
    private static final LongAdder PARSES = new LongAdder();

    private ParsedQueries() {}

    /** @throws IllegalArgumentException the query does not parse (see {@link SchemaQueryParser#parseQuery}) */
    static Query parse(String defaultField, String text) {
        String key = defaultField + '\u0000' + text;
        Query q = CACHE.get(key);
        if (q == null) {
            PARSES.increment();
            q = new SchemaQueryParser(defaultField).parseQuery(text);
            long weight = weigh(key, q);
            if (weight <= MAX_ENTRY_BYTES) {
                synchronized (CACHE) {
                    if (CACHE.size() >= MAX || bytes + weight > MAX_BYTES) {
                        CACHE.clear();
                        bytes = 0;
                    }
                    if (CACHE.putIfAbsent(key, q) == null) {
                        bytes += weight;
                    }
                }
            }
        }
        return q;
    }

    /** Bytes the cache holds now, by the weights of its entries. */
    static long cachedBytes() {
        synchronized (CACHE) {
            return bytes;
        }
    }

    /** Texts parsed since the process started (cache misses, failures too): a cached query is not parsed again. */
    static long parses() {
        return PARSES.sum();
    }

    /** An estimate of the memory a cached entry holds: its key, every clause and term, every automaton. */
    static long weigh(String key, Query q) {
        long[] sum = {RamUsageEstimator.sizeOf(key)};
        q.visit(new QueryVisitor() {
            @Override
            public void consumeTerms(Query query, Term... terms) {
                for (Term t : terms) {
                    sum[0] += NODE_BYTES + t.bytes().length;
                }
            }

            @Override
            public void consumeTermsMatching(Query query, String field, Supplier<ByteRunAutomaton> automaton) {
                sum[0] += NODE_BYTES
                        + (query instanceof Accountable a
                                ? a.ramBytesUsed()
                                : automaton.get().ramBytesUsed());
            }

            @Override
            public void visitLeaf(Query query) {
                sum[0] += NODE_BYTES + (query instanceof Accountable a ? a.ramBytesUsed() : 0);
            }

            @Override
            public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
                sum[0] += NODE_BYTES;
                return this; // every clause, MUST_NOT too: it is held all the same
            }
        });
        return sum[0];
    }
}
