package dev.logpipe.query.internal.loki;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A grouped count takes the most frequent value as the shard's total less the others only on a searcher of one point
 * in time; on one whose every call reads the shard anew (OpenSearch), records arriving between the calls must not make
 * a count wrong or negative, so every value is counted. Our own fake of the searcher seam: records arrive between calls.
 */
class HistogramCountsTest {
    static final Histogram H = new Histogram(0, 1_000, 2);
    static final ShardQuery Q = ShardQuery.of("acme", ParsedQuery.ALL, 0, 2_000);

    /** INFO 900 and ERROR 100 in bucket 0 at first; five more ERROR records become visible after each call. */
    static class Arriving implements ShardSearcher {
        final boolean pointInTime;
        final List<String> asked = new ArrayList<>();
        int calls;

        Arriving(boolean pointInTime) {
            this.pointInTime = pointInTime;
        }

        long errors() {
            return 100 + 5L * calls++;
        }

        @Override
        public boolean pointInTime() {
            return pointInTime;
        }

        @Override
        public long[] histogram(ShardQuery q, Histogram h, long deadlineNanos) {
            String level = q.filters().isEmpty()
                    ? "all"
                    : ((ShardQuery.Exact) q.filters().get(0)).value();
            asked.add(level);
            long errors = errors();
            return switch (level) {
                case "all" -> new long[] {900 + errors, 0};
                case "ERROR" -> new long[] {errors, 0};
                default -> new long[] {900, 0};
            };
        }

        @Override
        public Values values(ShardQuery q, String field, int maxValues, long deadlineNanos) {
            long errors = errors();
            return new Values(Map.of("INFO", 900L, "ERROR", errors), 0, 0, 900 + errors, true);
        }

        @Override
        public ShardId shard() {
            return ShardId.records("acme", LocalDate.parse("2026-12-07"));
        }

        @Override
        public int docs() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Keys keys(ShardQuery q, Order order, After after, int limit, long deadlineNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String[] sources(int[] docs, SourceBudget budget) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<LongKey> longKeys(
                ShardQuery q, String structuredField, boolean ascending, int limit, long deadlineNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<LongKey> keysByTime(
                String timeField, ShardQuery q, long afterTime, String afterId, int limit, long deadlineNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long count(ShardQuery q, long deadlineNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public OptionalLong maxTime(String timeField) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }

    @Test
    void onASearcherThatReadsTheShardAnewEachValueIsCountedNotTakenAsTheTotalLessTheOthers() throws Exception {
        Arriving moving = new Arriving(false);
        HistogramCounts.ShardCounts c = HistogramCounts.countShard(moving, Q, "level", H, Long.MAX_VALUE);
        assertThat(moving.asked).as("INFO counted itself").contains("INFO", "ERROR");
        assertThat(c.groups().get("INFO")).containsExactly(900, 0);
        assertThat(c.groups()).doesNotContainKey(null);
    }

    @Test
    void onAPointInTimeSearcherTheMostFrequentValueIsTheTotalLessTheOthers() throws Exception {
        Arriving still = new Arriving(true) {
            @Override
            long errors() {
                return 100; // one point in time: every call sees the same records
            }
        };
        HistogramCounts.ShardCounts c = HistogramCounts.countShard(still, Q, "level", H, Long.MAX_VALUE);
        assertThat(still.asked).as("one pass fewer").containsExactly("all", "ERROR");
        assertThat(c.groups().get("INFO")).containsExactly(900, 0);
        assertThat(c.groups().get("ERROR")).containsExactly(100, 0);
    }
}
