package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSearcher.Key;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archiver reads a day oldest first through {@link OldestFirstWalk} (each segment backwards, merged) instead of the
 * collector's sorted pages; the keys must be the collector's, page for page: across segments, with many records at
 * one time (order by id, descending as unsigned UTF-8, ids past ASCII included), with replaced records (deleted
 * documents, some moved to another time) and with cursors from pages of any size.
 */
class OldestFirstWalkTest {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final Instant T = Instant.parse("2026-12-01T08:00:00Z");
    private static final ShardId DAY = ShardId.records("acme", LocalDate.parse("2026-12-01"));
    private static final ShardQuery ALL = ShardQuery.of("acme", ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE);
    private static final String[] ID_PARTS = {"r-", "R-", "é-", "😀-", "z", "a-b-", "ÿ"};

    /** More than {@link #write} ever writes. */
    private static final int MAX_RECORDS = 4 * 800;

    @TempDir
    Path data;

    @Test
    void pagesOfEverySizeHoldTheCollectorsKeysInItsOrder() throws Exception {
        for (int seed = 1; seed <= 6; seed++) {
            Path dir = data.resolve("seed-" + seed);
            int live = write(dir, new Random(seed));
            try (CommittedShards shards = new CommittedShards(new ShardLayout(dir), Duration.ofHours(1));
                    ShardSearcher s = shards.open(DAY).orElseThrow()) {
                LuceneShardSearcher lucene = (LuceneShardSearcher) s;
                assertThat(lucene.reader().leaves()).as("segments").hasSizeGreaterThan(1);
                assertThat(lucene.reader().numDeletedDocs())
                        .as("deleted documents")
                        .isPositive();
                for (int page : new int[] {1, 7, 100, 10_000}) {
                    List<Key> collected = pages(
                            s, page, System.nanoTime() + Duration.ofMinutes(5).toNanos());
                    List<Key> walked = pages(s, page, Long.MAX_VALUE);
                    assertThat(collected).as("seed %d, page %d", seed, page).hasSize(live);
                    assertThat(walked).as("seed %d, page %d", seed, page).isEqualTo(collected);
                }
                assertThat(OldestFirstWalk.keys(lucene.reader(), ALL, null, 10))
                        .as("the walk answered")
                        .isPresent();
            }
        }
    }

    @Test
    void aSegmentWithAnotherTenantOrTimesOutsideTheRangeIsLeftToTheCollector() throws Exception {
        write(data, new Random(7));
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                ShardSearcher s = shards.open(DAY).orElseThrow()) {
            LuceneShardSearcher lucene = (LuceneShardSearcher) s;
            ShardQuery other = ShardQuery.of("other", ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE);
            long from = T.toEpochMilli() + 5_000;
            long to = T.toEpochMilli() + 10_000;
            ShardQuery narrow = ShardQuery.of("acme", ParsedQuery.ALL, from, to);
            assertThat(OldestFirstWalk.keys(lucene.reader(), other, null, 10)).isEmpty();
            assertThat(OldestFirstWalk.keys(lucene.reader(), narrow, null, 10)).isEmpty();
            assertThat(s.keys(other, ShardSearcher.Order.OLDEST_FIRST, null, 10, Long.MAX_VALUE)
                            .keys())
                    .isEmpty();
            List<Key> inRange = s.keys(narrow, ShardSearcher.Order.OLDEST_FIRST, null, 10_000, Long.MAX_VALUE)
                    .keys();
            assertThat(inRange).isNotEmpty().allMatch(k -> k.eventTimeMillis() >= from && k.eventTimeMillis() < to);
        }
    }

    private static List<Key> pages(ShardSearcher s, int page, long deadlineNanos) throws Exception {
        List<Key> all = new ArrayList<>();
        After after = null;
        while (true) {
            List<Key> keys = s.keys(ALL, ShardSearcher.Order.OLDEST_FIRST, after, page, deadlineNanos)
                    .keys();
            if (keys.isEmpty()) {
                return all;
            }
            all.addAll(keys);
            assertThat(all.size()).as("pages that do not move on").isLessThanOrEqualTo(MAX_RECORDS);
            Key last = keys.get(keys.size() - 1);
            after = new After(last.eventTimeMillis(), last.recordId().text());
        }
    }

    /** Four commits of random records over a few distinct times, then some replaced; returns the live count. */
    private static int write(Path dir, Random random) throws Exception {
        List<String> ids = new ArrayList<>();
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(dir), StoreSettings.defaults(), InstantSource.fixed(T))) {
            for (int c = 0; c < 4; c++) {
                List<IndexRecord> batch = new ArrayList<>();
                int n = 200 + random.nextInt(600);
                for (int i = 0; i < n; i++) {
                    String id = ID_PARTS[random.nextInt(ID_PARTS.length)] + ids.size();
                    ids.add(id);
                    batch.add(record(id, random.nextInt(20) * 1_000L));
                }
                store.write(DAY, batch);
                store.commit(Map.of("t-0", (long) c));
            }
            List<IndexRecord> replays = new ArrayList<>();
            for (String id : ids) {
                if (random.nextInt(10) == 0) {
                    replays.add(record(id, random.nextInt(25) * 1_000L));
                }
            }
            store.write(DAY, replays);
            store.commit(Map.of("t-0", 9L));
        }
        return ids.size();
    }

    private static IndexRecord record(String id, long offsetMillis) throws Exception {
        Instant t = T.plusMillis(offsetMillis);
        byte[] line = CODEC.encode(LogRecord.builder("call " + id)
                .recordId(id)
                .service("api")
                .tenantId("acme")
                .eventTime(t)
                .observedTime(t)
                .build());
        return new IndexRecord(CODEC.decode(line), t, t, line, 0, line.length);
    }
}
