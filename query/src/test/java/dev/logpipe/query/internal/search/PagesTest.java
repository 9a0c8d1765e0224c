package dev.logpipe.query.internal.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.QueryPlanner;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Phase two reads the sources of the keys phase one chose through the searchers phase one used: a commit and a reopen
 * in between (new documents, merged segments, replaced ones) change neither which records nor which sources come back.
 */
class PagesTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path data;

    static List<IndexRecord> records(int from, int to, String text) throws Exception {
        List<IndexRecord> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Instant t = T.plusSeconds(i * 60L);
            byte[] line = CODEC.encode(LogRecord.builder(text + " " + i)
                    .recordId("r-" + i)
                    .tenantId("acme")
                    .eventTime(t)
                    .observedTime(t)
                    .build());
            out.add(new IndexRecord(CODEC.decode(line), t, t, line, 0, line.length));
        }
        return out;
    }

    @Test
    void sourcesAreThoseOfTheChosenKeysEvenAfterAReopenBetweenThePhases() throws Exception {
        ShardLayout layout = new ShardLayout(data);
        ShardId day = ShardId.records("acme", LocalDate.ofInstant(T, ZoneOffset.UTC));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (LuceneStore store = new LuceneStore(layout, StoreSettings.defaults(), InstantSource.fixed(T));
                CommittedShards shards = new CommittedShards(layout, Duration.ofHours(1))) {
            for (int c = 0; c < 4; c++) { // four commits: several segments
                store.write(day, records(c * 50, (c + 1) * 50, "first"));
                store.commit(Map.of("t-0", (long) c));
            }
            TimeRange range =
                    new TimeRange(T.toEpochMilli(), T.plusSeconds(86_400).toEpochMilli());
            Plan plan = new QueryPlanner(shards, 31, Long.MAX_VALUE)
                    .plan(
                            "acme",
                            ShardKind.RECORDS,
                            range,
                            Long.MAX_VALUE,
                            ParsedQuery.ALL,
                            ShardSearcher.Order.NEWEST_FIRST,
                            null);
            Pages pages = new Pages(new FanOut(shards, pool), plan, 4, System.nanoTime() + 10_000_000_000L);
            try {
                pages.collect(ShardQuery.of("acme", ParsedQuery.ALL, range.fromMillis(), range.toMillis()), null, 30);
                // between the phases: every record replaced, newer ones added, committed, reopened
                store.write(day, records(0, 260, "second"));
                store.commit(Map.of("t-0", 9L));
                shards.reopenOnce();
                String[] sources = pages.sources(Long.MAX_VALUE, System.nanoTime() + 10_000_000_000L, null)
                        .sources();
                assertThat(pages.winners()).hasSize(30);
                for (int i = 0; i < 30; i++) {
                    String id = pages.winners().get(i).key().recordId().text();
                    assertThat(id).isEqualTo("r-" + (199 - i));
                    assertThat(JSON.readTree(sources[i]).get("record_id").asText())
                            .isEqualTo(id);
                    assertThat(JSON.readTree(sources[i]).get("message").asText())
                            .isEqualTo("first " + (199 - i));
                }
            } finally {
                pages.close();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
