package dev.logpipe.index.store.aggregate;

/**
 * The buckets of a time histogram: bucket {@code i} counts the matches whose event time lies in
 * [{@code startMillis + i * intervalMillis}, {@code startMillis + (i + 1) * intervalMillis}); a search answers one
 * count per bucket, in this order.
 */
public record Histogram(long startMillis, long intervalMillis, int buckets) {
    public Histogram {
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("a histogram's interval must be positive, was " + intervalMillis);
        }
        if (buckets < 0) {
            throw new IllegalArgumentException("a histogram's bucket count must not be negative, was " + buckets);
        }
    }
}
