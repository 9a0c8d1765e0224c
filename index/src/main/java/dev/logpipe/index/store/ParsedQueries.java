package dev.logpipe.index.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.search.Query;

/**
 * Query text parsed once per request instead of once per shard (and once more for the syntax check and label
 * pruning): a small cache of parsed queries by default field and text. A parsed Lucene query is immutable and
 * thread-safe, and parsing depends on nothing but the text and the default field, so a cached one is the same query.
 * Bounded: cleared when it holds {@link #MAX} entries. Failures are not cached.
 */
final class ParsedQueries {
    static final int MAX = 512;
    private static final Map<String, Query> CACHE = new ConcurrentHashMap<>();

    private ParsedQueries() {}

    /** @throws IllegalArgumentException the query does not parse (see {@link SchemaQueryParser#parseQuery}) */
    static Query parse(String defaultField, String text) {
        String key = defaultField + '\u0000' + text;
        Query q = CACHE.get(key);
        if (q == null) {
            q = new SchemaQueryParser(defaultField).parseQuery(text);
            if (CACHE.size() >= MAX) {
                CACHE.clear();
            }
            CACHE.put(key, q);
        }
        return q;
    }
}
