package dev.logpipe.query.internal.search;

import dev.logpipe.index.store.read.ShardSearcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Phase one of a search: the k-way merge of the shards' key pages (each already in merge order) on (event_time,
 * record_id), the same total order as {@link Merge}, over keys only: the page's winners, with the shard each came
 * from, before any stored source is read.
 */
public final class KeyMerge {
    private KeyMerge() {}

    /** One winner: the index of its shard's page and its key. */
    public record Pick(int page, ShardSearcher.Key key) {}

    public static Comparator<ShardSearcher.Key> order(ShardSearcher.Order order) {
        // NEWEST_FIRST: time descending, record_id ascending as unsigned bytes (the index sort); OLDEST_FIRST reversed
        Comparator<ShardSearcher.Key> newestFirst = (a, b) -> {
            int c = Long.compare(b.eventTimeMillis(), a.eventTimeMillis());
            return c != 0 ? c : a.recordId().compareTo(b.recordId());
        };
        return order == ShardSearcher.Order.NEWEST_FIRST ? newestFirst : newestFirst.reversed();
    }

    /** The first {@code limit} keys of the merged pages. */
    public static List<Pick> merge(List<List<ShardSearcher.Key>> pages, ShardSearcher.Order order, int limit) {
        Comparator<ShardSearcher.Key> cmp = order(order);
        PriorityQueue<int[]> heads = new PriorityQueue<>(
                (x, y) -> cmp.compare(pages.get(x[0]).get(x[1]), pages.get(y[0]).get(y[1])));
        for (int i = 0; i < pages.size(); i++) {
            if (!pages.get(i).isEmpty()) {
                heads.add(new int[] {i, 0});
            }
        }
        List<Pick> out = new ArrayList<>(Math.min(limit, 1024));
        while (out.size() < limit && !heads.isEmpty()) {
            int[] h = heads.poll();
            out.add(new Pick(h[0], pages.get(h[0]).get(h[1])));
            if (h[1] + 1 < pages.get(h[0]).size()) {
                heads.add(new int[] {h[0], h[1] + 1});
            }
        }
        return out;
    }
}
