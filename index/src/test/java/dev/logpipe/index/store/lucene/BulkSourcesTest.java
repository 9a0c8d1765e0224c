package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many sources in one call (the archiver reading a day) go through a reader that decompresses each stored-fields block
 * once; they must be the same sources, in the caller's order, as a page at a time through the pooled readers, across
 * segments and with replaced (deleted) documents in between.
 */
class BulkSourcesTest {
    @TempDir
    Path data;

    @Test
    void aDayReadInOneCallHasTheSourcesPageByPageReadingGives() throws Exception {
        try (LuceneStore store = new LuceneStore(
                new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(MatchAllHistogramTest.T))) {
            for (int c = 0; c < 3; c++) {
                List<IndexRecord> batch = new ArrayList<>();
                for (int i = c * 1000; i < (c + 1) * 1000; i++) {
                    batch.add(MatchAllHistogramTest.record(i, 0));
                }
                store.write(MatchAllHistogramTest.DAY, batch);
                store.commit(Map.of("t-0", (long) c));
            }
            List<IndexRecord> replays = new ArrayList<>();
            for (int i = 0; i < MatchAllHistogramTest.RECORDS; i += 7) {
                replays.add(MatchAllHistogramTest.record(i, 1));
            }
            store.write(MatchAllHistogramTest.DAY, replays);
            store.commit(Map.of("t-0", 9L));
        }
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                ShardSearcher s = shards.open(MatchAllHistogramTest.DAY).orElseThrow()) {
            ShardQuery all = ShardQuery.of("acme", ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE);
            List<ShardSearcher.Key> keys = s.keys(all, ShardSearcher.Order.OLDEST_FIRST, null, 10_000, Long.MAX_VALUE)
                    .keys();
            assertThat(keys).hasSize(MatchAllHistogramTest.RECORDS);
            int[] docs = keys.stream().mapToInt(ShardSearcher.Key::doc).toArray();
            assertThat(docs.length).isGreaterThanOrEqualTo(LuceneShardSearcher.BULK_SOURCES);

            String[] bulk = s.sources(docs, ShardSearcher.SourceBudget.UNBOUNDED);
            List<String> paged = new ArrayList<>();
            for (int from = 0; from < docs.length; from += 100) {
                int[] page = Arrays.copyOfRange(docs, from, Math.min(docs.length, from + 100));
                paged.addAll(Arrays.asList(s.sources(page, ShardSearcher.SourceBudget.UNBOUNDED)));
            }
            assertThat(bulk).containsExactlyElementsOf(paged);
            assertThat(bulk).doesNotContainNull();
            assertThat(bulk[0]).contains("\"record_id\":\"r-");
        }
    }
}
