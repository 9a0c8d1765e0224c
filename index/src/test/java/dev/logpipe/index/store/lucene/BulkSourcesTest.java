package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
        MatchAllHistogramTest.write(data, 7);
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
