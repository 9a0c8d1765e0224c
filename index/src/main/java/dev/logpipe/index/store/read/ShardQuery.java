package dev.logpipe.index.store.read;

import dev.logpipe.index.query.ParsedQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one shard search matches: the user's query, parsed once per request ({@link ParsedQuery#ALL} for all), which
 * each engine translates, always restricted to
 * {@code tenant} and to event times in [{@code fromMillis}, {@code toMillis}), plus exact filters the service adds
 * (never parsed from text, so no value can change the query's shape).
 */
public record ShardQuery(String tenant, ParsedQuery query, long fromMillis, long toMillis, List<Filter> filters) {
    public ShardQuery {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(query, "query");
        filters = List.copyOf(filters);
        if (fromMillis > toMillis) {
            throw new IllegalArgumentException("from must not be after to: " + fromMillis + " > " + toMillis);
        }
    }

    public static ShardQuery of(String tenant, ParsedQuery query, long fromMillis, long toMillis) {
        return new ShardQuery(tenant, query, fromMillis, toMillis, List.of());
    }

    public ShardQuery with(Filter f) {
        List<Filter> all = new ArrayList<>(filters);
        all.add(f);
        return new ShardQuery(tenant, query, fromMillis, toMillis, all);
    }

    /** A filter outside the query text. */
    public sealed interface Filter permits Exact, LongRange, ObservedRange {}

    /**
     * The keyword field equals the value: a top-level keyword ({@code instance_id}) or {@code fields.<name>}.
     */
    public record Exact(String field, String value) implements Filter {
        public Exact {
            Objects.requireNonNull(field, "field");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * The record was observed in [{@code fromMillis}, {@code toMillis}): a live tail's moving window, kept out of the
     * query so the query (and what an engine compiles it to, cached by it) stays the same from one poll to the next.
     */
    public record ObservedRange(long fromMillis, long toMillis) implements Filter {
        public ObservedRange {
            if (fromMillis > toMillis) {
                throw new IllegalArgumentException(
                        "observed from must not be after to: " + fromMillis + " > " + toMillis);
            }
        }
    }

    /** A whole-number structured field {@code fields.<name>} lies in [lo, hi]. */
    public record LongRange(String field, long lo, long hi) implements Filter {
        public LongRange {
            Objects.requireNonNull(field, "field");
        }
    }
}
