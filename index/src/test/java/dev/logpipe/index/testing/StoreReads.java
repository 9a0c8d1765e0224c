package dev.logpipe.index.testing;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Counts and pages of one tenant's records over some shards, read through the query service's own read side
 * ({@link ShardSource}, {@link ShardSearcher}) for tests of the write side. A blank query matches everything; every
 * event time matches; shards that do not exist are left out; pages are newest first (event_time desc, record_id asc
 * as unsigned UTF-8 bytes) across the shards.
 */
public final class StoreReads {
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    /** Newest first, then record_id as unsigned bytes: the merge order of every page. */
    public static final Comparator<Hit> ORDER = Comparator.comparingLong(
                    (Hit h) -> -h.eventTime().toEpochMilli())
            .thenComparing((a, b) -> Arrays.compareUnsigned(utf8(a.recordId()), utf8(b.recordId())));

    private StoreReads() {}

    /** One page of hits in {@link #ORDER}; {@code next} is null on the last page. */
    public record Page(List<Hit> hits, After next) {
        public Page {
            hits = List.copyOf(hits);
        }
    }

    /** How many of the tenant's documents match {@code query} in the given shards. */
    public static long count(ShardSource source, Collection<ShardId> shards, String tenant, String query)
            throws IOException {
        long n = 0;
        for (ShardId shard : shards) {
            Optional<ShardSearcher> s = source.open(shard);
            if (s.isPresent()) {
                try (ShardSearcher searcher = s.get()) {
                    n += count(searcher, tenant, query);
                }
            }
        }
        return n;
    }

    /** How many of the tenant's documents match {@code query} in one open shard. */
    public static long count(ShardSearcher searcher, String tenant, String query) throws IOException {
        return searcher.count(everyTime(tenant, query), NO_DEADLINE);
    }

    /** Up to {@code limit} matching hits after {@code after} (null: from the start), merged across the shards. */
    public static Page page(
            ShardSource source, Collection<ShardId> shards, String tenant, String query, After after, int limit)
            throws IOException {
        List<Hit> all = new ArrayList<>();
        for (ShardId shard : shards) {
            Optional<ShardSearcher> s = source.open(shard);
            if (s.isPresent()) {
                try (ShardSearcher searcher = s.get()) {
                    all.addAll(searcher.search(
                                    everyTime(tenant, query),
                                    ShardSearcher.Order.NEWEST_FIRST,
                                    after,
                                    limit,
                                    NO_DEADLINE)
                            .hits());
                }
            }
        }
        all.sort(ORDER);
        List<Hit> hits = all.subList(0, Math.min(limit, all.size()));
        After next = null;
        if (hits.size() == limit) {
            Hit last = hits.get(hits.size() - 1);
            next = new After(last.eventTime().toEpochMilli(), last.recordId());
        }
        return new Page(hits, next);
    }

    /** The first page of up to {@code limit} matching hits, merged across the shards. */
    public static List<Hit> hits(ShardSource source, Collection<ShardId> shards, String tenant, String query, int limit)
            throws IOException {
        return page(source, shards, tenant, query, null, limit).hits();
    }

    private static ShardQuery everyTime(String tenant, String query) {
        return ShardQuery.of(tenant, ParsedQuery.parse(query), Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
