package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * One search the query service asks of each shard of a plan, as a value: an engine that answers several shards in one
 * round trip ({@link ShardSource#callsTogether}) reads what is asked from it; any searcher answers it through
 * {@link #on}. Each kind answers exactly what the {@link ShardSearcher} method of the same name answers.
 */
public sealed interface ShardCall<T> {
    /** The answer of {@code s} to this call, as its method answers it. */
    T on(ShardSearcher s, long deadlineNanos) throws IOException;

    /** {@link ShardSearcher#keys}. */
    record KeysOf(ShardQuery query, ShardSearcher.Order order, After after, int limit)
            implements ShardCall<ShardSearcher.Keys> {
        @Override
        public ShardSearcher.Keys on(ShardSearcher s, long deadlineNanos) throws IOException {
            return s.keys(query, order, after, limit, deadlineNanos);
        }
    }

    /**
     * {@link KeysOf} on most shards and only the count on {@code countOnly} (answered as {@link ShardSearcher.Keys}
     * without keys and an exact total), so an engine that calls shards together asks a page's first shards for their
     * keys and the rest for the counts that make its total exact in one round trip. A count is given until {@code
     * countDeadlineNanos} (or the call's deadline, the sooner; on OpenSearch as the search's own {@code timeout}, in
     * whole seconds) and then fails as a timed-out shard would; the round trip returns with its slowest search, so
     * counts can delay the keys by about that long, as counts asked after the keys delayed the answer. An engine may
     * count further on the keys' shards than a page alone does (OpenSearch: up to 100,000 matches, the same work as the
     * count that would follow, without its round trip).
     */
    record KeysThenCountsOf(KeysOf keys, Set<ShardId> countOnly, long countDeadlineNanos)
            implements ShardCall<ShardSearcher.Keys> {
        public KeysThenCountsOf {
            countOnly = Set.copyOf(countOnly);
        }

        /** True when {@code shard} is asked only for its count. */
        public boolean countsOnly(ShardId shard) {
            return countOnly.contains(shard);
        }

        /** The deadline of a count: the sooner of the count's own and the call's. */
        public long countDeadline(long deadlineNanos) {
            return deadlineNanos - countDeadlineNanos < 0 ? deadlineNanos : countDeadlineNanos;
        }

        @Override
        public ShardSearcher.Keys on(ShardSearcher s, long deadlineNanos) throws IOException {
            if (countsOnly(s.shard())) {
                return new ShardSearcher.Keys(List.of(), s.count(keys.query(), countDeadline(deadlineNanos)), true);
            }
            return keys.on(s, deadlineNanos);
        }
    }

    /** {@link ShardSearcher#count}. */
    record CountOf(ShardQuery query) implements ShardCall<Long> {
        @Override
        public Long on(ShardSearcher s, long deadlineNanos) throws IOException {
            return s.count(query, deadlineNanos);
        }
    }

    /** {@link ShardSearcher#histogram}. */
    record HistogramOf(ShardQuery query, Histogram histogram) implements ShardCall<long[]> {
        @Override
        public long[] on(ShardSearcher s, long deadlineNanos) throws IOException {
            return s.histogram(query, histogram, deadlineNanos);
        }
    }

    /** {@link ShardSearcher#values}. */
    record ValuesOf(ShardQuery query, String field, int maxValues) implements ShardCall<Values> {
        @Override
        public Values on(ShardSearcher s, long deadlineNanos) throws IOException {
            return s.values(query, field, maxValues, deadlineNanos);
        }
    }

    /**
     * One shard's answer to a call asked together with others: its value, or the exception its searcher would have
     * thrown ({@link ShardSearcher.TimedOut}, {@link IllegalArgumentException} for a query the engine cannot run,
     * {@link CorruptShardException}, another {@link IOException} or runtime exception).
     */
    record Answer<T>(T value, Exception failure) {
        public static <T> Answer<T> of(T value) {
            return new Answer<>(value, null);
        }

        public static <T> Answer<T> failed(Exception failure) {
            return new Answer<>(null, failure);
        }
    }
}
