package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import java.nio.file.Path;
import java.util.Random;
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
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a histogram's buckets lie in a segment sorted newest first is found by searching the doc values for each
 * bucket's edge (interpolating, then halving): for times spread evenly, in clusters, with long runs of one time and
 * with a gap of years, and for any grid, every document's run must be its own time's bucket.
 */
class TimeSortedRunsTest {
    @TempDir
    Path dir;

    @Test
    void everyDocumentsRunIsItsOwnTimesBucketForAnySpreadOfTimesAndAnyGrid() throws Exception {
        Random random = new Random(20261207);
        for (String spread : new String[] {"even", "clusters", "ties", "gap"}) {
            Path d = dir.resolve(spread);
            write(d, spread, random);
            try (Directory directory = FSDirectory.open(d);
                    DirectoryReader reader = DirectoryReader.open(directory)) {
                for (LeafReaderContext leaf : reader.leaves()) {
                    assertThat(TimeSortedRuns.applies(leaf.reader())).isTrue();
                    assertThat(leaf.reader().numDeletedDocs()).isPositive();
                    long[] times = times(leaf.reader());
                    for (int round = 0; round < 300; round++) {
                        Histogram h = grid(times, random);
                        TimeSortedRuns.Runs runs = TimeSortedRuns.of(leaf.reader(), h);
                        for (int doc = 0; doc < times.length; doc++) {
                            long bucket = Math.max(
                                    -1,
                                    Math.min(
                                            h.buckets(),
                                            Math.floorDiv(times[doc] - h.startMillis(), h.intervalMillis())));
                            int position = runs.position(doc);
                            assertThat(runs.bucket(position))
                                    .as("%s times, %s, doc %d at %d", spread, h, doc, times[doc])
                                    .isEqualTo(bucket);
                            assertThat(runs.end(position)).isGreaterThan(doc);
                        }
                    }
                }
            }
        }
    }

    private static Histogram grid(long[] times, Random random) {
        long a = times[random.nextInt(times.length)];
        long b = times[random.nextInt(times.length)];
        long interval = Math.max(1, Math.abs(a - b) / (1 + random.nextInt(50)));
        long start = Math.min(a, b) - (random.nextBoolean() ? 0 : random.nextInt(1_000));
        return new Histogram(start, interval, 1 + random.nextInt(120));
    }

    private static long[] times(LeafReader leaf) throws Exception {
        long[] out = new long[leaf.maxDoc()];
        NumericDocValues values = leaf.getNumericDocValues(Fields.EVENT_TIME);
        for (int doc = 0; doc < out.length; doc++) {
            assertThat(values.advanceExact(doc)).isTrue();
            out[doc] = values.longValue();
        }
        return out;
    }

    private static void write(Path d, String spread, Random random) throws Exception {
        long t = 1_796_515_200_000L;
        try (Directory directory = FSDirectory.open(d);
                IndexWriter w =
                        new IndexWriter(directory, new IndexWriterConfig().setIndexSort(IndexSchema.indexSort()))) {
            for (int i = 0; i < 5_000; i++) {
                long time = switch (spread) {
                    case "even" -> t + random.nextInt(86_400_000);
                    case "clusters" -> t + 3_600_000L * random.nextInt(4) + random.nextInt(1_000);
                    case "ties" -> t + 60_000L * random.nextInt(3);
                    default -> random.nextInt(10) == 0 ? t - 3L * 365 * 86_400_000L : t + random.nextInt(1_000);
                };
                Document doc = new Document();
                String id = "r" + i;
                doc.add(new StringField(Fields.RECORD_ID, id, Field.Store.NO));
                doc.add(new SortedDocValuesField(Fields.RECORD_ID, new BytesRef(id)));
                doc.add(new LongPoint(Fields.EVENT_TIME, time));
                doc.add(new NumericDocValuesField(Fields.EVENT_TIME, time));
                w.addDocument(doc);
            }
            w.forceMerge(1);
            for (int i = 0; i < 5_000; i += 7) {
                w.deleteDocuments(new Term(Fields.RECORD_ID, "r" + i)); // deleted documents keep their doc ids
            }
            w.commit();
        }
    }
}
