package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Top values of a match-all query over whole segments come from the terms' document frequencies; they must equal the
 * collector's document-by-document counts, also when segments hold deleted documents (docFreq still counts those).
 */
class TopValuesTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:00Z");
    static final ShardId DAY = ShardId.records("acme", LocalDate.parse("2026-12-01"));
    static final String[] SERVICES = {"api", "billing", "auth", "search", "cron"};

    @TempDir
    Path data;

    static IndexRecord record(String id, int i, int version) throws Exception {
        LogRecord.Builder b = LogRecord.builder("hello " + id + " v" + version)
                .recordId(id)
                .tenantId("acme")
                .eventTime(T.plusSeconds(i))
                .observedTime(T.plusSeconds(i))
                .service(SERVICES[(i + version) % SERVICES.length]);
        if (i % 7 != 0) {
            b.instanceId("host-" + (i % 3));
        }
        byte[] line = CODEC.encode(b.build());
        return new IndexRecord(CODEC.decode(line), T.plusSeconds(i), T.plusSeconds(i), line, 0, line.length);
    }

    /** Writes 3 commits (3+ segments) of 300 records; with {@code replays}, rewrites every tenth under new values. */
    Map<String, Long> write(boolean replays) throws Exception {
        Map<Integer, Integer> version = new HashMap<>();
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T))) {
            for (int c = 0; c < 3; c++) {
                List<IndexRecord> batch = new ArrayList<>();
                for (int i = c * 300; i < (c + 1) * 300; i++) {
                    batch.add(record("r-" + i, i, 0));
                    version.put(i, 0);
                }
                store.write(DAY, batch);
                store.commit(Map.of("t-0", (long) c));
            }
        }
        if (replays) { // reopened, so replayed ids are real updates: deletions in the older segments
            try (LuceneStore store =
                    new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T))) {
                List<IndexRecord> batch = new ArrayList<>();
                for (int i = 0; i < 900; i += 10) { // few enough that no merge reclaims them
                    batch.add(record("r-" + i, i, 1));
                    version.put(i, 1);
                }
                store.write(DAY, batch);
                store.commit(Map.of("t-0", 9L));
            }
        }
        Map<String, Long> truth = new HashMap<>();
        version.forEach((i, v) -> truth.merge(SERVICES[(i + v) % SERVICES.length], 1L, Long::sum));
        return truth;
    }

    Values top(String field, String q, long from, long to, int max) throws Exception {
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                ShardSearcher s = shards.open(DAY).orElseThrow()) {
            return s.values(ShardQuery.of("acme", ParsedQuery.parse(q), from, to), field, max, Long.MAX_VALUE);
        }
    }

    static final long ALL_FROM = T.minusSeconds(3600).toEpochMilli();
    static final long ALL_TO = T.plusSeconds(7200).toEpochMilli();

    @Test
    void matchAllTopValuesEqualTheCollectorsCountsWithoutDeletions() throws Exception {
        Map<String, Long> truth = write(false);
        Values fast = top("service", "", ALL_FROM, ALL_TO, 100);
        Values collected = top("service", "*:*", ALL_FROM, ALL_TO, 100);
        assertThat(fast).isEqualTo(collected);
        assertThat(fast.counts()).isEqualTo(truth);
        assertThat(fast.matched()).isEqualTo(900);
        Values inst = top("instance_id", "", ALL_FROM, ALL_TO, 100);
        assertThat(inst).isEqualTo(top("instance_id", "*:*", ALL_FROM, ALL_TO, 100));
        assertThat(inst.missing()).isEqualTo(129); // i % 7 == 0 for i in [0, 900)
        assertThat(top("service", "", ALL_FROM, ALL_TO, 2))
                .isEqualTo(top("service", "*:*", ALL_FROM, ALL_TO, 2)); // overflow folds the same way
    }

    @Test
    void matchAllTopValuesEqualTheCollectorsCountsWithDeletedDocuments() throws Exception {
        Map<String, Long> truth = write(true);
        try (Directory d = FSDirectory.open(new ShardLayout(data).luceneDir(DAY));
                DirectoryReader r = DirectoryReader.open(d)) {
            assertThat(r.hasDeletions())
                    .as("the replays left deleted documents")
                    .isTrue();
            assertThat(r.leaves().stream().filter(l -> !l.reader().hasDeletions()))
                    .as("and a segment without any")
                    .isNotEmpty();
        }
        Values fast = top("service", "", ALL_FROM, ALL_TO, 100);
        assertThat(fast.counts()).isEqualTo(truth); // docFreq alone would count the 90 replaced documents too
        assertThat(fast.matched()).isEqualTo(900);
        assertThat(fast).isEqualTo(top("service", "*:*", ALL_FROM, ALL_TO, 100));
    }

    @Test
    void aRangeCuttingThroughSegmentsAndUnknownFieldsStillCountExactly() throws Exception {
        write(false);
        long from = T.plusSeconds(100).toEpochMilli();
        long to = T.plusSeconds(650).toEpochMilli();
        Values part = top("service", "", from, to, 100);
        assertThat(part.matched()).isEqualTo(550);
        assertThat(part).isEqualTo(top("service", "*:*", from, to, 100));
        Values none = top("fields.nope", "", ALL_FROM, ALL_TO, 100);
        assertThat(none.counts()).isEmpty();
        assertThat(none.missing()).isEqualTo(900).isEqualTo(none.matched());
        assertThat(top("fields.nope", "*:*", ALL_FROM, ALL_TO, 100)).isEqualTo(none);
        assertThat(top("service", "", ALL_FROM, ALL_TO, 100).counts())
                .isEqualTo(top("service", "*:*", ALL_FROM, ALL_TO, 100).counts());
        assertThatThrownBy(() -> top("event_time", "", ALL_FROM, ALL_TO, 100))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
