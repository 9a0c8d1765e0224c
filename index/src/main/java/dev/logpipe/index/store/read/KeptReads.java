package dev.logpipe.index.store.read;

/**
 * What a reading side keeps between requests, for its gauges: terms' counts per minute for histograms and the
 * documents walks of term dictionaries found (wildcards, regular expressions, prefixes, line filters' parts of tokens),
 * each bounded in bytes. The embedded engine's shard sources keep them; an engine that keeps nothing answers zeros.
 */
public interface KeptReads {
    /** Bytes of terms' counts per minute held now (8 MiB at most). */
    long termMinutesBytes();

    /** Terms' counts per minute built so far, each one walk of a term's postings in one segment. */
    long termMinutesBuilds();

    /** Bytes of documents term walks found, held now (32 MiB at most). */
    long termWalkBytes();

    /** A segment's term walk answered from what was kept. */
    long termWalkHits();

    /** A query part looked up and not found kept (counted for every part, kept or not: Lucene's count). */
    long termWalkMisses();
}
