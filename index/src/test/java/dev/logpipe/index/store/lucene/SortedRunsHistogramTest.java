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
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A histogram of a query the points tree cannot answer is collected document by document, and in segments sorted
 * newest first a bucket's matches are one run of doc ids whose end is found by binary search: the buckets must equal
 * the records' own times for any grid (buckets before, inside and after the data, a grid wider than a long's range)
 * and any range, with deleted documents and with matches spread thinly over the runs.
 */
class SortedRunsHistogramTest {
    @TempDir
    Path data;

    long[] histogram(ShardSearcher s, String q, long from, long to, Histogram h) throws Exception {
        return s.histogram(ShardQuery.of("acme", ParsedQuery.parse(q), from, to), h, Long.MAX_VALUE);
    }

    @Test
    void bucketsOfACollectedQueryEqualTheRecordsTimesForAnyGridAndRange() throws Exception {
        List<Long> times = MatchAllHistogramTest.write(data, 25);
        List<Long> web = new ArrayList<>();
        for (int i = 0; i < MatchAllHistogramTest.RECORDS; i++) {
            if (MatchAllHistogramTest.service(i).equals("web")) {
                web.add(times.get(i));
            }
        }
        try (Directory d = FSDirectory.open(new ShardLayout(data).luceneDir(MatchAllHistogramTest.DAY));
                DirectoryReader r = DirectoryReader.open(d)) {
            for (LeafReaderContext leaf : r.leaves()) {
                assertThat(TimeSortedRuns.applies(leaf.reader()))
                        .as("segment %d is sorted newest first", leaf.ord)
                        .isTrue();
            }
        }
        long t = MatchAllHistogramTest.T.toEpochMilli();
        Random random = new Random(20261207);
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                ShardSearcher s = shards.open(MatchAllHistogramTest.DAY).orElseThrow()) {
            for (int round = 0; round < 200; round++) {
                long interval = 1 + (long) (random.nextDouble() * random.nextDouble() * 7_200_000L);
                long start = t - 3_600_000L + random.nextLong(14 * 3_600_000L);
                if (round % 2 == 0) { // edges on records' own times: a record at an edge opens its bucket
                    long a = times.get(random.nextInt(times.size()));
                    long b = times.get(random.nextInt(times.size()));
                    start = Math.min(a, b);
                    interval = Math.max(1, Math.abs(a - b) / (1 + random.nextInt(3)));
                }
                int buckets = 1 + random.nextInt(400);
                long from = t - 3_600_000L + random.nextLong(8 * 3_600_000L);
                long to = from + random.nextLong(12 * 3_600_000L);
                Histogram h = new Histogram(start, interval, buckets);
                assertThat(histogram(s, "call*", from, to, h))
                        .as("every record, %s over [%d, %d)", h, from, to)
                        .isEqualTo(MatchAllHistogramTest.truth(times, from, to, h));
                assertThat(histogram(s, "service:web", from, to, h))
                        .as("every other record of one commit, %s over [%d, %d)", h, from, to)
                        .isEqualTo(MatchAllHistogramTest.truth(web, from, to, h));
            }
            long from = t - 3_600_000L;
            long to = t + 12 * 3_600_000L;
            for (Histogram h : List.of(
                    new Histogram(Long.MIN_VALUE / 2, Long.MAX_VALUE / 4, 4), // edges past a long
                    new Histogram(t + 3_600_000L, 1, 1), // one millisecond
                    new Histogram(t - 86_400_000L, 1_000, 10))) { // before every record
                assertThat(histogram(s, "call*", from, to, h))
                        .as("%s", h)
                        .isEqualTo(MatchAllHistogramTest.truth(times, from, to, h));
            }
        }
    }
}
