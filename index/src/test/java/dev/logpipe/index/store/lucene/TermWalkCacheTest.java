package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documents a wildcard's walk of the term dictionary found in a segment are kept for the next request that asks
 * the same (a dashboard's refresh, a LogQL line filter's infix), with the same answer; an exact term is not kept.
 */
class TermWalkCacheTest {
    @TempDir
    Path data;

    @Test
    void aRepeatedWildcardIsAnsweredFromTheKeptWalkAndAnExactTermIsNotKept() throws Exception {
        List<Long> times = MatchAllHistogramTest.write(data, 25);
        List<Long> twelves = new ArrayList<>();
        for (int i = 0; i < MatchAllHistogramTest.RECORDS; i++) {
            if (String.valueOf(i).startsWith("12")) {
                twelves.add(times.get(i));
            }
        }
        long from = MatchAllHistogramTest.FROM;
        long to = MatchAllHistogramTest.TO;
        Histogram h = new Histogram(from, 3_600_000L, 13);
        long[] truth = MatchAllHistogramTest.truth(twelves, from, to, h);
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1))) {
            assertThat(histogram(shards, "12*", from, to, h)).isEqualTo(truth);
            long misses = shards.keptReads().termWalkMisses();
            long hits = shards.keptReads().termWalkHits();
            assertThat(misses).as("the walk was done").isPositive();
            assertThat(shards.keptReads().termWalkBytes()).isPositive();

            assertThat(histogram(shards, "12*", from, to, h)).isEqualTo(truth);
            assertThat(shards.keptReads().termWalkHits())
                    .as("answered from what was kept")
                    .isGreaterThan(hits);

            long bytes = shards.keptReads().termWalkBytes();
            histogram(shards, "service:web OR service:api", from, to, h);
            assertThat(shards.keptReads().termWalkBytes())
                    .as("exact terms are not kept")
                    .isEqualTo(bytes);
        }
    }

    private static long[] histogram(CommittedShards shards, String q, long from, long to, Histogram h)
            throws Exception {
        try (ShardSearcher s = shards.open(MatchAllHistogramTest.DAY).orElseThrow()) {
            return s.histogram(
                    ShardQuery.of("acme", ParsedQuery.parse(q), from, to), h, System.nanoTime() + 10_000_000_000L);
        }
    }
}
