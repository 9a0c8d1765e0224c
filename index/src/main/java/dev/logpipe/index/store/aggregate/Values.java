package dev.logpipe.index.store.aggregate;

import java.util.Map;

/**
 * Value counts of a keyword field among a search's matches: {@code counts} holds at most the number of values asked
 * for (the first seen beyond that are folded into {@code overflow}, and {@code complete} is false); {@code missing}
 * matched without a value. {@code sum(counts) + overflow + missing == matched}.
 */
public record Values(Map<String, Long> counts, long overflow, long missing, long matched, boolean complete) {
    public Values {
        counts = Map.copyOf(counts);
    }
}
