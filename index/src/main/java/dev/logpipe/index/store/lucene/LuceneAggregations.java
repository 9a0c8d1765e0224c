package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.util.BytesRef;

/**
 * Collectors over doc values: a time histogram and the counts of a keyword field's values (or, for a whole segment
 * matched by everything, its terms' document frequencies), answered as the engine-neutral {@code store.aggregate}
 * values.
 */
final class LuceneAggregations {
    private LuceneAggregations() {}

    /** A histogram of the matches; {@code runs} says where the buckets lie in a sorted segment, once per segment. */
    static CollectorManager<HistogramCollector, long[]> histogram(Histogram h, TimeSortedRuns.Memo runs) {
        int buckets = h.buckets();
        return new CollectorManager<>() {
            @Override
            public HistogramCollector newCollector() {
                return new HistogramCollector(h, runs);
            }

            @Override
            public long[] reduce(Collection<HistogramCollector> cs) {
                long[] out = new long[buckets];
                for (HistogramCollector c : cs) {
                    for (int i = 0; i < buckets; i++) {
                        out[i] += c.counts[i];
                    }
                }
                return out;
            }
        };
    }

    /** Counts the values of the matches into {@code tally} (one thread: the collectors flush into it in turn). */
    static CollectorManager<ValuesCollector, Tally> values(String luceneField, Tally tally) {
        return new CollectorManager<>() {
            @Override
            public ValuesCollector newCollector() {
                return new ValuesCollector(luceneField, tally);
            }

            @Override
            public Tally reduce(Collection<ValuesCollector> cs) throws IOException {
                for (ValuesCollector c : cs) {
                    c.flush();
                }
                return tally;
            }
        };
    }

    /**
     * Value counts being added up, leaf by leaf in value order: at most {@code maxValues} distinct values are kept, the
     * counts of the first values seen beyond that go to {@code overflow}.
     */
    static final class Tally {
        private final int maxValues;
        private final Map<String, Long> counts = new HashMap<>();
        private long overflow;
        private long missing;
        private long matched;

        Tally(int maxValues) {
            this.maxValues = maxValues;
        }

        void add(String value, long n) {
            if (counts.containsKey(value) || counts.size() < maxValues) {
                counts.merge(value, n, Long::sum);
            } else {
                overflow += n;
            }
        }

        void matched(long n, long withoutValue) {
            matched += n;
            missing += withoutValue;
        }

        Values values() {
            return new Values(counts, overflow, missing, matched, overflow == 0);
        }
    }

    /**
     * Counts one whole segment from its terms' document frequencies, without visiting a document, when that is exact:
     * the query matches every document of the segment (everything, or {@link CoveringTerms}: the caller checks), the
     * segment has no deleted documents (a deleted document still counts in
     * {@code docFreq}), every document is the tenant's and has an event time within [{@code fromMillis},
     * {@code toMillis}). Returns false (nothing added) otherwise: the caller counts the segment with the collector.
     */
    static boolean countByDocFreq(
            LeafReader leaf, String luceneField, String tenant, long fromMillis, long toMillis, Tally tally)
            throws IOException {
        int maxDoc = leaf.maxDoc();
        if (leaf.hasDeletions() || leaf.numDocs() != maxDoc) {
            return false;
        }
        if (maxDoc == 0) {
            return true;
        }
        if (leaf.docFreq(new Term(Fields.TENANT_ID, tenant)) != maxDoc) {
            return false;
        }
        PointValues times = leaf.getPointValues(Fields.EVENT_TIME);
        if (times == null || times.getDocCount() != maxDoc || times.size() != maxDoc) {
            return false;
        }
        long min = LongPoint.decodeDimension(times.getMinPackedValue(), 0);
        long max = LongPoint.decodeDimension(times.getMaxPackedValue(), 0);
        if (min < fromMillis || max > toMillis - 1) {
            return false;
        }
        FieldInfo info = leaf.getFieldInfos().fieldInfo(luceneField);
        if (info != null && info.getDocValuesType() != DocValuesType.SORTED) {
            throw new IllegalStateException(
                    "field " + luceneField + " has doc values of type " + info.getDocValuesType() + ", not SORTED");
        }
        Terms terms = leaf.terms(luceneField);
        if (terms == null) {
            tally.matched(maxDoc, maxDoc);
            return true;
        }
        TermsEnum te = terms.iterator();
        for (BytesRef t = te.next(); t != null; t = te.next()) {
            tally.add(t.utf8ToString(), te.docFreq());
        }
        tally.matched(maxDoc, maxDoc - terms.getDocCount());
        return true;
    }

    /**
     * Counts matches per time bucket. In a segment sorted newest first ({@link TimeSortedRuns}) a bucket's matches are
     * one run of doc ids whose ends are known before the first match: a match costs a comparison, and a time is never
     * read. Elsewhere each match's time is read from doc values.
     */
    static final class HistogramCollector extends SimpleCollector {
        private final Histogram h;
        private final TimeSortedRuns.Memo memo;
        final long[] counts;
        private NumericDocValues times;
        private TimeSortedRuns.Counter runs;

        HistogramCollector(Histogram h, TimeSortedRuns.Memo memo) {
            this.h = h;
            this.memo = memo;
            this.counts = new long[h.buckets()];
        }

        @Override
        protected void doSetNextReader(LeafReaderContext context) throws IOException {
            TimeSortedRuns.Runs r = memo.of(context.reader(), h);
            runs = r == null ? null : new TimeSortedRuns.Counter(r, counts);
            times = r == null ? DocValues.getNumeric(context.reader(), Fields.EVENT_TIME) : null;
        }

        @Override
        public void collect(int doc) throws IOException {
            if (runs != null) {
                runs.add(doc);
            } else if (times.advanceExact(doc)) {
                long b = Math.floorDiv(times.longValue() - h.startMillis(), h.intervalMillis());
                if (b >= 0 && b < counts.length) {
                    counts[(int) b]++;
                }
            }
        }

        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.COMPLETE_NO_SCORES;
        }
    }

    static final class ValuesCollector extends SimpleCollector {
        private final String field;
        private final Tally tally;
        private long matched;
        private long missing;
        private SortedDocValues values;
        private int[] ords;

        ValuesCollector(String field, Tally tally) {
            this.field = field;
            this.tally = tally;
        }

        @Override
        protected void doSetNextReader(LeafReaderContext context) throws IOException {
            flush();
            values = DocValues.getSorted(context.reader(), field);
            ords = new int[Math.max(0, values.getValueCount())];
        }

        @Override
        public void collect(int doc) throws IOException {
            matched++;
            if (values.advanceExact(doc)) {
                ords[values.ordValue()]++;
            } else {
                missing++;
            }
        }

        void flush() throws IOException {
            tally.matched(matched, missing);
            matched = 0;
            missing = 0;
            if (values == null) {
                return;
            }
            for (int o = 0; o < ords.length; o++) {
                if (ords[o] != 0) {
                    tally.add(values.lookupOrd(o).utf8ToString(), ords[o]);
                }
            }
            values = null;
            ords = null;
        }

        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.COMPLETE_NO_SCORES;
        }
    }
}
