package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A term's counts per minute, kept after the first count, give the same buckets as walking its postings for any grid
 * of whole minutes starting anywhere (a whole minute, 1 ms past one as LogQL's windows do, or any phase), follow
 * deletions (a new view of the segment is a new entry), refuse intervals of part minutes, and stay within their bytes.
 */
class TermMinutesTest {
    static final long T0 = 1_796_515_200_000L; // a day's start
    static final int RECORDS = 6_000;
    static final List<String> LEVELS = List.of("INFO", "WARN", "ERROR");

    @TempDir
    Path dir;

    final Random random = new Random(20261207);
    final long[] times = new long[RECORDS];
    final String[] levels = new String[RECORDS];
    final Set<Integer> deleted = new HashSet<>();
    /** The terms and phases the grids asked for. */
    final Set<String> asked = new HashSet<>();

    @Test
    void minuteCountsGiveTheBucketsOfTheLiveDocumentsForAnyGridOfWholeMinutes() throws Exception {
        TermMinutes minutes = new TermMinutes(TermMinutes.DEFAULT_MAX_BYTES);
        try (Directory d = FSDirectory.open(dir);
                IndexWriter w = new IndexWriter(d, config())) {
            write(w);
            deleteSome(w, 7);
            Object core;
            long builds;
            try (DirectoryReader r = DirectoryReader.open(w)) {
                checkGrids(minutes, only(r));
                assertThat(minutes.builds())
                        .as("one walk per term and phase, then kept")
                        .isEqualTo(asked.size());
                core = only(r).getCoreCacheHelper().getKey();
                builds = minutes.builds();
                checkGrids(minutes, only(r), 0);
                assertThat(minutes.builds()).as("whole minutes again: kept").isEqualTo(builds);
            }
            deleteSome(w, 5);
            asked.clear();
            try (DirectoryReader r = DirectoryReader.open(w)) {
                assertThat(only(r).getCoreCacheHelper().getKey())
                        .as("the same segment")
                        .isSameAs(core);
                checkGrids(minutes, only(r));
                assertThat(minutes.builds())
                        .as("a new view of the segment is counted anew")
                        .isEqualTo(builds + asked.size());
            }
        }
    }

    @Test
    void aGridOfPartMinutesIsNotCountedFromMinutesAndTheBytesStayBounded() throws Exception {
        try (Directory d = FSDirectory.open(dir);
                IndexWriter w = new IndexWriter(d, config())) {
            write(w);
            try (DirectoryReader r = DirectoryReader.open(w)) {
                LeafReader leaf = only(r);
                TermMinutes minutes = new TermMinutes(TermMinutes.DEFAULT_MAX_BYTES);
                long[] counts = new long[48];
                assertThat(minutes.count(leaf, level("WARN"), new Histogram(T0, 90_000L, 48), counts, () -> {}))
                        .isFalse();
                assertThat(counts).containsOnly(0L);
                assertThat(minutes.builds()).isZero();

                long oneEntry = 4L * (2 * 1440) + 160; // the segment spans two days
                TermMinutes small = new TermMinutes(oneEntry + 100);
                for (String l : LEVELS) {
                    assertThat(small.count(leaf, level(l), new Histogram(T0, 3_600_000L, 48), new long[48], () -> {}))
                            .isTrue();
                }
                assertThat(small.bytes()).isLessThanOrEqualTo(oneEntry + 100).isPositive();
                small.count(leaf, level("INFO"), new Histogram(T0, 3_600_000L, 48), new long[48], () -> {});
                assertThat(small.builds())
                        .as("the last kept, the others evicted")
                        .isEqualTo(4);

                TermMinutes none = new TermMinutes(100);
                assertThat(none.count(leaf, level("INFO"), new Histogram(T0, 3_600_000L, 48), new long[48], () -> {}))
                        .isTrue();
                assertThat(none.bytes())
                        .as("an entry larger than the bound is not kept")
                        .isZero();
            }
        }
    }

    private void checkGrids(TermMinutes minutes, LeafReader leaf) throws Exception {
        checkGrids(minutes, leaf, -1);
    }

    /** 200 random grids of whole minutes starting {@code phase} ms past a minute (-1: a random phase each). */
    private void checkGrids(TermMinutes minutes, LeafReader leaf, long fixedPhase) throws Exception {
        for (int round = 0; round < 200; round++) {
            long phase = fixedPhase >= 0
                    ? fixedPhase
                    : random.nextBoolean() ? 0 : random.nextBoolean() ? 1 : random.nextInt(60_000);
            long start = T0 + TermMinutes.MINUTE * (random.nextInt(3 * 1440) - 1440) + phase;
            long interval = TermMinutes.MINUTE * (1 + random.nextInt(random.nextBoolean() ? 5 : 300));
            Histogram h = new Histogram(start, interval, 1 + random.nextInt(300));
            String l = random.nextBoolean() ? "WARN" : "ERROR";
            asked.add(l + "@" + phase);
            long[] counts = new long[h.buckets()];
            assertThat(minutes.count(leaf, level(l), h, counts, () -> {})).isTrue();
            assertThat(counts).as("%s %s", l, h).isEqualTo(truth(l, h));
        }
    }

    private long[] truth(String level, Histogram h) {
        long[] out = new long[h.buckets()];
        for (int i = 0; i < RECORDS; i++) {
            long b = Math.floorDiv(times[i] - h.startMillis(), h.intervalMillis());
            if (!deleted.contains(i) && levels[i].equals(level) && b >= 0 && b < out.length) {
                out[(int) b]++;
            }
        }
        return out;
    }

    private static Term level(String value) {
        return new Term(Fields.LEVEL, value);
    }

    private static LeafReader only(DirectoryReader r) throws Exception {
        assertThat(r.leaves()).hasSize(1);
        LeafReader leaf = r.leaves().get(0).reader();
        assertThat(TimeSortedRuns.applies(leaf)).isTrue();
        return leaf;
    }

    private void write(IndexWriter w) throws Exception {
        for (int i = 0; i < RECORDS; i++) {
            times[i] = T0 + (long) (random.nextDouble() * random.nextDouble() * 2 * 86_400_000L);
            levels[i] = i % 9 == 0 ? "ERROR" : i % 4 == 0 ? "WARN" : "INFO";
            Document doc = new Document();
            doc.add(new StringField(Fields.RECORD_ID, "r" + i, Field.Store.NO));
            doc.add(new SortedDocValuesField(Fields.RECORD_ID, new BytesRef("r" + i)));
            doc.add(new StringField(Fields.LEVEL, levels[i], Field.Store.NO));
            doc.add(new LongPoint(Fields.EVENT_TIME, times[i]));
            doc.add(new NumericDocValuesField(Fields.EVENT_TIME, times[i]));
            w.addDocument(doc);
        }
        w.commit();
    }

    /** One segment, never merged: deletions only change its live documents. */
    private static IndexWriterConfig config() {
        return new IndexWriterConfig()
                .setIndexSort(IndexSchema.indexSort())
                .setMergePolicy(NoMergePolicy.INSTANCE)
                .setRAMBufferSizeMB(64);
    }

    private void deleteSome(IndexWriter w, int every) throws Exception {
        for (int i = random.nextInt(every); i < RECORDS; i += every) {
            if (deleted.add(i)) {
                w.deleteDocuments(new Term(Fields.RECORD_ID, "r" + i));
            }
        }
        w.commit();
    }
}
