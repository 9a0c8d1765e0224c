package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import java.io.Closeable;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A point-in-time view of one shard and the searches the query service runs on it: sorted pages with search-after,
 * counts, a time histogram, top values, a sort by a numeric field (context), the newest time indexed. The tenant
 * filter and the time range are always added outside the query text. Thread-safe; close it to release the view.
 *
 * <p>{@code deadlineNanos} ({@link System#nanoTime()} based, {@link Long#MAX_VALUE} for none) stops the work on the
 * shard: a search past it throws {@link TimedOut}. A query the engine cannot run (too many clauses) throws
 * {@link IllegalArgumentException}.
 */
public interface ShardSearcher extends Closeable {
    /**
     * Sort direction over the merge key (event_time, record_id): NEWEST_FIRST is event_time descending, then
     * record_id ascending as unsigned bytes ({@link IdBytes}); OLDEST_FIRST is the exact reverse.
     */
    enum Order {
        NEWEST_FIRST,
        OLDEST_FIRST
    }

    /** A page of one shard: hits in order, the matching total (exact, or a lower bound). */
    record Page(List<Hit> hits, long total, boolean totalExact) {
        public Page {
            hits = List.copyOf(hits);
        }
    }

    /** The shard stopped at its deadline. */
    final class TimedOut extends RuntimeException {
        public TimedOut(ShardId shard) {
            super("shard " + shard + " did not answer before the query's deadline", null, false, false);
        }
    }

    /**
     * The merge key of one hit and its document in this view: {@code doc} is valid only while this searcher is open
     * (phase two of a search loads the winners' sources through it, see {@link #sources}).
     */
    record Key(long eventTimeMillis, IdBytes recordId, int doc) {}

    /** Phase one of a page: the keys of up to {@code limit} hits in order, the matching total (exact, or a bound). */
    record Keys(List<Key> keys, long total, boolean totalExact) {
        public Keys {
            keys = List.copyOf(keys);
        }
    }

    /** A hit's value of the whole-number field it was sorted by, and its merge key. */
    record LongKey(long value, Key key) {}

    /**
     * What may be read: asked with a stored source's length in bytes before the source is read (and its memory
     * taken). Called by the reading thread; a budget shared by threads must be thread-safe.
     */
    @FunctionalInterface
    interface SourceBudget {
        SourceBudget UNBOUNDED = (i, bytes) -> true;

        /** True to read the source of {@code docs[index]} ({@code bytes} long); false leaves it null, unread. */
        boolean take(int index, int bytes);
    }

    ShardId shard();

    /** Live documents in this view. */
    int docs();

    /**
     * Phase one: the keys of up to {@code limit} hits after {@code after} (null: from the start) in the given order,
     * no stored field read; past a number of hits the engine chooses, the total is a lower bound.
     */
    Keys keys(ShardQuery q, Order order, After after, int limit, long deadlineNanos) throws IOException;

    /** Phase two: the stored sources of documents of this view (from {@link #keys}), in the order given. */
    default String[] sources(int[] docs) throws IOException {
        return sources(docs, SourceBudget.UNBOUNDED);
    }

    /**
     * {@link #sources(int[])} with a budget: a document the budget refuses is skipped without reading its source
     * and is null in the result.
     */
    String[] sources(int[] docs, SourceBudget budget) throws IOException;

    /** Up to {@code limit} hits after {@code after} (null: from the start) in the given order, with their sources. */
    default Page search(ShardQuery q, Order order, After after, int limit, long deadlineNanos) throws IOException {
        Keys keys = keys(q, order, after, limit, deadlineNanos);
        int[] docs = new int[keys.keys().size()];
        for (int i = 0; i < docs.length; i++) {
            docs[i] = keys.keys().get(i).doc();
        }
        String[] sources = sources(docs);
        List<Hit> hits = new ArrayList<>(docs.length);
        for (int i = 0; i < docs.length; i++) {
            Key k = keys.keys().get(i);
            hits.add(new Hit(
                    sources[i],
                    Instant.ofEpochMilli(k.eventTimeMillis()),
                    k.recordId().text(),
                    shard()));
        }
        return new Page(hits, keys.total(), keys.totalExact());
    }

    /**
     * The keys of up to {@code limit} hits sorted by a whole-number structured field ({@code log.offset}), then the
     * merge key, no stored field read ({@link #sources} reads them while this searcher is open).
     */
    List<LongKey> longKeys(ShardQuery q, String structuredField, boolean ascending, int limit, long deadlineNanos)
            throws IOException;

    /**
     * The keys of up to {@code limit} hits in the order of a time field ({@code observed_time}) then record_id, after
     * ({@code afterTime}, {@code afterId}) (null: from the start), no stored field read; {@link LongKey#value} is the
     * time field's value, and so is the key's time.
     */
    List<LongKey> keysByTime(
            String timeField, ShardQuery q, long afterTime, String afterId, int limit, long deadlineNanos)
            throws IOException;

    /** How many documents match. */
    long count(ShardQuery q, long deadlineNanos) throws IOException;

    /** Matching documents per bucket of {@code h}, one count per bucket in order. */
    long[] histogram(ShardQuery q, Histogram h, long deadlineNanos) throws IOException;

    /** Counts of every value of a keyword field among the matches (at most {@code maxValues} kept). */
    Values values(ShardQuery q, String field, int maxValues, long deadlineNanos) throws IOException;

    /** The largest value of a time field in this view (deleted documents included), empty when none. */
    OptionalLong maxTime(String timeField) throws IOException;

    /**
     * True when every call on this searcher sees the same documents (one point in time), so counts of two calls may be
     * subtracted; false (the default) when each call reads the shard as it is then.
     */
    default boolean pointInTime() {
        return false;
    }

    @Override
    void close() throws IOException;
}
