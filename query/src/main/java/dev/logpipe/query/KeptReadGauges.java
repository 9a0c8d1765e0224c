package dev.logpipe.query;

import dev.logpipe.index.store.read.KeptReads;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The Lucene store's kept reads as gauges (docs/query.md, the metrics): registered by the query process and by the
 * standalone on the registry of each query service it builds.
 */
public final class KeptReadGauges {
    private KeptReadGauges() {}

    public static void register(MeterRegistry registry, KeptReads kept) {
        gauge(
                registry,
                "logpipe_query.term_minutes.bytes",
                "Bytes of terms' counts per minute kept (8 MiB at most)",
                kept::termMinutesBytes);
        gauge(
                registry,
                "logpipe_query.term_minutes.builds",
                "Terms' counts per minute built: a walk of postings each",
                kept::termMinutesBuilds);
        gauge(
                registry,
                "logpipe_query.term_walks.bytes",
                "Bytes of documents term walks found, kept (32 MiB at most)",
                kept::termWalkBytes);
        gauge(
                registry,
                "logpipe_query.term_walks.hits",
                "Term walks (wildcards, regexps, line filters) answered kept",
                kept::termWalkHits);
        gauge(
                registry,
                "logpipe_query.term_walks.misses",
                "Query parts looked up and not found kept",
                kept::termWalkMisses);
    }

    private static void gauge(MeterRegistry registry, String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }
}
