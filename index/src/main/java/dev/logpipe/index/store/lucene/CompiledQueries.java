package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.query.QueryNode;
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
 * A parsed query compiled once per shard source instead of once per shard searched: a small cache of Lucene queries by
 * default field and parsed query, owned by a {@link LiveShards} or a {@link CommittedShards}. A Lucene query is
 * immutable and thread-safe, and compiling depends on nothing but the tree and the default field, so a cached one is
 * the same query. Bounded by memory, not only by a count: each entry is weighed in bytes (its key, its terms, and what
 * Lucene reports for its automata: a 50-character regular expression or wildcard can compile to megabytes), the cache
 * is cleared before it would exceed {@link #MAX_BYTES} or {@link #MAX} entries, and a query heavier than
 * {@link #MAX_ENTRY_BYTES} is not cached at all. Failures are not cached.
 */
final class CompiledQueries {
    static final int MAX = 512;
    static final long MAX_BYTES = 16L * 1024 * 1024;
    static final long MAX_ENTRY_BYTES = MAX_BYTES / 16;
    /** What a clause, a term or a tree node costs beyond its bytes (object headers, arrays, the BooleanClause). */
    private static final long NODE_BYTES = 64;

    private record Key(String defaultField, ParsedQuery query) {}

    private final Map<Key, Query> cache = new ConcurrentHashMap<>();
    private long bytes; // guarded by cache's monitor; only misses take it
    private final LongAdder compiles = new LongAdder();

    /** @throws dev.logpipe.index.query.InvalidQuery Lucene refuses to build it (see {@link LuceneQueries#compile}) */
    Query compile(String defaultField, ParsedQuery query) {
        Key key = new Key(defaultField, query);
        Query q = cache.get(key);
        if (q == null) {
            compiles.increment();
            q = LuceneQueries.compile(defaultField, query);
            long weight = weigh(key, q);
            if (weight <= MAX_ENTRY_BYTES) {
                synchronized (cache) {
                    if (cache.size() >= MAX || bytes + weight > MAX_BYTES) {
                        cache.clear();
                        bytes = 0;
                    }
                    if (cache.putIfAbsent(key, q) == null) {
                        bytes += weight;
                    }
                }
            }
        }
        return q;
    }

    /** Bytes the cache holds now, by the weights of its entries. */
    long cachedBytes() {
        synchronized (cache) {
            return bytes;
        }
    }

    /** Queries compiled so far (cache misses, failures too): a cached query is not compiled again. */
    long compiles() {
        return compiles.sum();
    }

    /** An estimate of the memory a cached entry holds: its key (text and tree), every clause and term, every automaton. */
    static long weigh(String defaultField, ParsedQuery query, Query q) {
        return weigh(new Key(defaultField, query), q);
    }

    private static long weigh(Key key, Query q) {
        long[] sum = {
            RamUsageEstimator.sizeOf(key.defaultField())
                    + RamUsageEstimator.sizeOf(key.query().text())
                    + NODE_BYTES * nodes(key.query().root())
        };
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

    /** The nodes of a parsed tree (its leaves' strings are views of the text, weighed with it). */
    private static long nodes(QueryNode n) {
        if (n instanceof QueryNode.Bool b) {
            long sum = 1;
            for (QueryNode.Clause c : b.clauses()) {
                sum += 1 + nodes(c.node());
            }
            return sum;
        }
        if (n instanceof QueryNode.Boost b) {
            return 1 + nodes(b.node());
        }
        return 1;
    }
}
