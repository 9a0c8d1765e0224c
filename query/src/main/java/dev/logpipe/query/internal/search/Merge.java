package dev.logpipe.query.internal.search;

import dev.logpipe.index.store.SearchPage;
import dev.logpipe.index.store.ShardSearcher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The k-way merge of per-shard pages, each already in merge order, on (event_time, record_id): newest first with
 * record_id ascending, or the exact reverse. A deterministic total order within a tenant, and no order claimed
 * beyond it (invariant I9: times from independent clocks).
 */
public final class Merge {
    private Merge() {}

    public static Comparator<SearchPage.Hit> order(ShardSearcher.Order order) {
        // NEWEST_FIRST: time descending, record_id ascending (the index sort); OLDEST_FIRST is its exact reverse
        Comparator<SearchPage.Hit> newestFirst = (a, b) -> {
            int c = Long.compare(b.eventTime().toEpochMilli(), a.eventTime().toEpochMilli());
            return c != 0 ? c : compareUtf8(a.recordId(), b.recordId());
        };
        return order == ShardSearcher.Order.NEWEST_FIRST ? newestFirst : newestFirst.reversed();
    }

    /** Lucene compares keywords as UTF-8 bytes; so does the merge (UTF-16 order differs beyond the BMP). */
    static int compareUtf8(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** The first {@code limit} hits of the merged pages. */
    public static List<SearchPage.Hit> merge(List<List<SearchPage.Hit>> pages, ShardSearcher.Order order, int limit) {
        Comparator<SearchPage.Hit> cmp = order(order);
        PriorityQueue<int[]> heads = new PriorityQueue<>(
                (x, y) -> cmp.compare(pages.get(x[0]).get(x[1]), pages.get(y[0]).get(y[1])));
        for (int i = 0; i < pages.size(); i++) {
            if (!pages.get(i).isEmpty()) {
                heads.add(new int[] {i, 0});
            }
        }
        List<SearchPage.Hit> out = new ArrayList<>(Math.min(limit, 1024));
        while (out.size() < limit && !heads.isEmpty()) {
            int[] h = heads.poll();
            out.add(pages.get(h[0]).get(h[1]));
            if (h[1] + 1 < pages.get(h[0]).size()) {
                heads.add(new int[] {h[0], h[1] + 1});
            }
        }
        return out;
    }
}
