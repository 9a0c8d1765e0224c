package dev.logpipe.index.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.search.Query;

/**
 * Query text parsed once per request instead of once per shard (and once more for the syntax check and label
 * pruning): a small cache of parsed queries by default field and text. A parsed Lucene query is immutable and
 * thread-safe, and parsing depends on nothing but the text and the default field, so a cached one is the same query.
 * Bounded by the text it holds, not only by a count: a parsed query's size follows its text (clauses, terms), so the
 * cache is cleared before its keys would exceed {@link #MAX_CHARS} characters or {@link #MAX} entries, whichever comes
 * first. Failures are not cached.
 */
final class ParsedQueries {
    static final int MAX = 512;
    static final long MAX_CHARS = 256 * 1024;
    private static final Map<String, Query> CACHE = new ConcurrentHashMap<>();
    private static final AtomicLong CHARS = new AtomicLong();

    private ParsedQueries() {}

    /** @throws IllegalArgumentException the query does not parse (see {@link SchemaQueryParser#parseQuery}) */
    static Query parse(String defaultField, String text) {
        String key = defaultField + '\u0000' + text;
        Query q = CACHE.get(key);
        if (q == null) {
            q = new SchemaQueryParser(defaultField).parseQuery(text);
            if (CACHE.size() >= MAX || CHARS.get() + key.length() > MAX_CHARS) {
                CACHE.clear();
                CHARS.set(0);
            }
            if (CACHE.putIfAbsent(key, q) == null) {
                CHARS.addAndGet(key.length());
            }
        }
        return q;
    }

    /** Characters of query text the cache holds now. */
    static long cachedChars() {
        return CHARS.get();
    }
}
