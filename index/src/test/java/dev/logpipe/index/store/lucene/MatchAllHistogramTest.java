package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.aggregate.Histogram;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A match-all histogram counts whole segments from the event-time points tree; its buckets must equal the collector's
 * document-by-document counts and the records' own times, also with deleted documents (still in the tree) and with a
 * range or a bucket grid that cuts through the segments' cells.
 */
class MatchAllHistogramTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:00Z");
    static final ShardId DAY = ShardId.records("acme", LocalDate.parse("2026-12-01"));
    static final int RECORDS = 3000;

    @TempDir
    Path data;

    /** The first two commits are all api; the third alternates api and web. */
    static String service(int i) {
        return i < 2000 || i % 2 == 0 ? "api" : "web";
    }

    static long time(int i) {
        return T.toEpochMilli() + i * 9_731L + (i % 7) * 1_000L; // 8 hours, not in order within a batch
    }

    static IndexRecord record(int i, int version) throws Exception {
        Instant t = Instant.ofEpochMilli(time(i) + version * 3_600_000L);
        byte[] line = CODEC.encode(LogRecord.builder("call " + i + " v" + version)
                .recordId("r-" + i)
                .service(service(i))
                .region("eu-west-1")
                .tenantId("acme")
                .eventTime(t)
                .observedTime(t)
                .build());
        return new IndexRecord(CODEC.decode(line), t, t, line, 0, line.length);
    }

    /** Three commits of 1,000 records; with {@code replays}, every 25th rewritten an hour later (a deletion each). */
    List<Long> write(boolean replays) throws Exception {
        return write(data, replays ? 25 : 0);
    }

    /**
     * Three commits of 1,000 records into {@code data}, then, unless {@code replayEvery} is 0, every such record
     * rewritten an hour later in a fourth (a deletion each); the records' times as they end up.
     */
    static List<Long> write(Path data, int replayEvery) throws Exception {
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T))) {
            for (int c = 0; c < 3; c++) {
                List<IndexRecord> batch = new ArrayList<>();
                for (int i = c * 1000; i < (c + 1) * 1000; i++) {
                    batch.add(record(i, 0));
                }
                store.write(DAY, batch);
                store.commit(Map.of("t-0", (long) c));
            }
            if (replayEvery > 0) {
                List<IndexRecord> batch = new ArrayList<>();
                for (int i = 0; i < RECORDS; i += replayEvery) {
                    batch.add(record(i, 1));
                }
                store.write(DAY, batch);
                store.commit(Map.of("t-0", 9L));
            }
        }
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            times.add(time(i) + (replayEvery > 0 && i % replayEvery == 0 ? 3_600_000L : 0));
        }
        return times;
    }

    long[] histogram(String q, long from, long to, Histogram h) throws Exception {
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                ShardSearcher s = shards.open(DAY).orElseThrow()) {
            return s.histogram(ShardQuery.of("acme", ParsedQuery.parse(q), from, to), h, Long.MAX_VALUE);
        }
    }

    static long[] truth(List<Long> times, long from, long to, Histogram h) {
        long[] out = new long[h.buckets()];
        for (long t : times) {
            long b = Math.floorDiv(t - h.startMillis(), h.intervalMillis());
            if (t >= from && t < to && b >= 0 && b < h.buckets()) {
                out[(int) b]++;
            }
        }
        return out;
    }

    /** Every segment of the shard is counted from its points tree (none falls back to the collector). */
    Map<String, Boolean> everySegmentFromPoints(long from, long to, Histogram h) throws Exception {
        Map<String, Boolean> out = new TreeMap<>();
        try (Directory d = FSDirectory.open(new ShardLayout(data).luceneDir(DAY));
                DirectoryReader r = DirectoryReader.open(d)) {
            for (LeafReaderContext leaf : r.leaves()) {
                out.put(
                        "segment " + leaf.ord + (leaf.reader().hasDeletions() ? " with deletions" : ""),
                        PointHistogram.count(
                                leaf.reader(), "acme", from, to, h, new long[h.buckets()], new TimeSortedRuns.Memo()));
            }
        }
        return out;
    }

    static final long FROM = T.minusSeconds(3600).toEpochMilli();
    static final long TO = T.plusSeconds(12 * 3600).toEpochMilli();

    @Test
    void matchAllBucketsEqualTheCollectorsAndTheRecordsTimes() throws Exception {
        List<Long> times = write(false);
        for (Histogram h : List.of(
                new Histogram(FROM, 3_600_000, 13),
                new Histogram(T.toEpochMilli() + 17, 60_000, 500),
                new Histogram(T.toEpochMilli() + 7_777, 1_000, 20_000),
                new Histogram(T.plusSeconds(3 * 3600).toEpochMilli(), 600_000, 4))) {
            long[] fast = histogram("", FROM, TO, h);
            assertThat(fast).as("%s", h).isEqualTo(histogram("*:*", FROM, TO, h));
            assertThat(fast).as("%s", h).isEqualTo(truth(times, FROM, TO, h));
            assertThat(everySegmentFromPoints(FROM, TO, h)).doesNotContainValue(false);
        }
    }

    @Test
    void deletedDocumentsAreNotCounted() throws Exception {
        List<Long> times = write(true);
        Histogram h = new Histogram(FROM, 600_000, 80);
        Map<String, Boolean> segments = everySegmentFromPoints(FROM, TO, h);
        assertThat(segments.keySet()).as("the replays left deletions").anyMatch(k -> k.endsWith("with deletions"));
        assertThat(segments).as("segments with deletions too").doesNotContainValue(false);
        long[] fast = histogram("", FROM, TO, h);
        assertThat(fast).isEqualTo(truth(times, FROM, TO, h));
        assertThat(fast).isEqualTo(histogram("*:*", FROM, TO, h));
    }

    @Test
    void aRangeCuttingThroughSegmentsCountsOnlyItsTimes() throws Exception {
        List<Long> times = write(false);
        long from = time(700) + 1;
        long to = time(2_100);
        Histogram h = new Histogram(T.toEpochMilli(), 1_800_000, 20);
        long[] fast = histogram("", from, to, h);
        assertThat(fast).isEqualTo(truth(times, from, to, h));
        assertThat(fast).isEqualTo(histogram("*:*", from, to, h));
        assertThat(histogram("", to, to + 1, h)).isEqualTo(truth(times, to, to + 1, h));
        Histogram day = new Histogram(FROM, 86_400_000, 1); // whole cells in one bucket, the range ends inside them
        assertThat(histogram("", from, to, day)).isEqualTo(truth(times, from, to, day));
        assertThat(histogram("", from, to, day)[0]).isEqualTo(1_399); // records 701 to 2,099
    }

    @Test
    void aConjunctionOfTermsEverySegmentDocumentHoldsCountsThoseSegmentsAsEverythingWithTheSameBuckets()
            throws Exception {
        List<Long> times = write(true);
        List<Long> api = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            if (service(i).equals("api")) {
                api.add(times.get(i));
            }
        }
        Histogram h = new Histogram(FROM, 600_000L, 78);
        assertThat(histogram("region:\"eu-west-1\"", FROM, TO, h)).isEqualTo(truth(times, FROM, TO, h));
        assertThat(histogram("service:api", FROM, TO, h)).isEqualTo(truth(api, FROM, TO, h));
        assertThat(histogram("service:api AND region:eu-west-1", FROM, TO, h)).isEqualTo(truth(api, FROM, TO, h));
        assertThat(histogram("service:web OR region:eu-west-1", FROM, TO, h)).isEqualTo(truth(times, FROM, TO, h));

        Map<String, Boolean> covered = new TreeMap<>();
        try (Directory d = FSDirectory.open(new ShardLayout(data).luceneDir(DAY));
                DirectoryReader r = DirectoryReader.open(d)) {
            for (LeafReaderContext leaf : r.leaves()) {
                covered.put(
                        "segment " + leaf.ord + " of " + leaf.reader().maxDoc(),
                        CoveringTerms.notInEveryDocument(
                                        leaf.reader(),
                                        List.of(
                                                new org.apache.lucene.index.Term("service", "api"),
                                                new org.apache.lucene.index.Term("region", "eu-west-1")),
                                        new org.apache.lucene.index.Term(Fields.TENANT_ID, "acme"))
                                .isEmpty());
            }
        }
        assertThat(covered.values())
                .as("the all-api segments are covered, the mixed ones are not: %s", covered)
                .contains(true, false);
    }

    @Test
    void topValuesOfAConjunctionOfTermsEqualTheCollectorsWithAndWithoutDeletions() throws Exception {
        for (boolean replays : new boolean[] {false, true}) {
            java.nio.file.Files.walk(data)
                    .sorted(java.util.Comparator.reverseOrder())
                    .filter(p -> !p.equals(data))
                    .forEach(p -> p.toFile().delete());
            write(replays);
            try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                    ShardSearcher s = shards.open(DAY).orElseThrow()) {
                // the same records, asked once as a conjunction of terms and once in a shape only the collector reads
                var fast = s.values(
                        ShardQuery.of("acme", ParsedQuery.parse("region:\"eu-west-1\""), FROM, TO),
                        "service",
                        10,
                        Long.MAX_VALUE);
                var slow = s.values(
                        ShardQuery.of("acme", ParsedQuery.parse("region:\"eu-west-1\" OR service:nothing"), FROM, TO),
                        "service",
                        10,
                        Long.MAX_VALUE);
                assertThat(fast.counts()).as("replays %s", replays).isEqualTo(slow.counts());
                assertThat(fast.matched()).isEqualTo(slow.matched()).isEqualTo(RECORDS);
                assertThat(fast.counts().get("web")).isEqualTo(500);
            }
        }
    }
}
