package dev.logpipe.index.store.lucene;

/** For the query module's tests: how often the index module's cache of parsed queries parsed a text. */
public final class ParsedQueriesProbe {
    private ParsedQueriesProbe() {}

    public static long parses() {
        return ParsedQueries.parses();
    }
}
