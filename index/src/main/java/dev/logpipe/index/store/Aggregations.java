package dev.logpipe.index.store;

import dev.logpipe.index.schema.Fields;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;

/** Collectors over doc values: a time histogram and the counts of a keyword field's values. */
public final class Aggregations {
    private Aggregations() {}

    /**
     * Value counts among the matches: {@code counts} holds at most {@code maxValues} values (the first seen beyond
     * that are folded into {@code overflow}, and {@code complete} is false); {@code missing} matched without a value.
     * {@code sum(counts) + overflow + missing == matched}.
     */
    public record Values(Map<String, Long> counts, long overflow, long missing, long matched, boolean complete) {
        public Values {
            counts = Map.copyOf(counts);
        }
    }

    static CollectorManager<HistogramCollector, long[]> histogram(long start, long interval, int buckets) {
        return new CollectorManager<>() {
            @Override
            public HistogramCollector newCollector() {
                return new HistogramCollector(start, interval, buckets);
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

    static CollectorManager<ValuesCollector, Values> values(String luceneField, int maxValues) {
        return new CollectorManager<>() {
            @Override
            public ValuesCollector newCollector() {
                return new ValuesCollector(luceneField, maxValues);
            }

            @Override
            public Values reduce(Collection<ValuesCollector> cs) throws IOException {
                Map<String, Long> all = new HashMap<>();
                long overflow = 0;
                long missing = 0;
                long matched = 0;
                for (ValuesCollector c : cs) {
                    c.flush();
                    for (Map.Entry<String, Long> e : c.counts.entrySet()) {
                        if (all.containsKey(e.getKey()) || all.size() < maxValues) {
                            all.merge(e.getKey(), e.getValue(), Long::sum);
                        } else {
                            overflow += e.getValue();
                        }
                    }
                    overflow += c.overflow;
                    missing += c.missing;
                    matched += c.matched;
                }
                return new Values(all, overflow, missing, matched, overflow == 0);
            }
        };
    }

    static final class HistogramCollector extends SimpleCollector {
        private final long start;
        private final long interval;
        final long[] counts;
        private NumericDocValues times;

        HistogramCollector(long start, long interval, int buckets) {
            this.start = start;
            this.interval = interval;
            this.counts = new long[buckets];
        }

        @Override
        protected void doSetNextReader(LeafReaderContext context) throws IOException {
            times = DocValues.getNumeric(context.reader(), Fields.EVENT_TIME);
        }

        @Override
        public void collect(int doc) throws IOException {
            if (times.advanceExact(doc)) {
                long b = Math.floorDiv(times.longValue() - start, interval);
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
        private final int maxValues;
        final Map<String, Long> counts = new HashMap<>();
        long overflow;
        long missing;
        long matched;
        private SortedDocValues values;
        private int[] ords;

        ValuesCollector(String field, int maxValues) {
            this.field = field;
            this.maxValues = maxValues;
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
            if (values == null) {
                return;
            }
            for (int o = 0; o < ords.length; o++) {
                if (ords[o] == 0) {
                    continue;
                }
                String v = values.lookupOrd(o).utf8ToString();
                if (counts.containsKey(v) || counts.size() < maxValues) {
                    counts.merge(v, (long) ords[o], Long::sum);
                } else {
                    overflow += ords[o];
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
