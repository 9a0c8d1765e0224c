package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.util.BytesRef;

/**
 * The Lucene engine's {@link ShardSearcher}: one shard's reader (an acquired near-real-time or committed view), its
 * searches built as Lucene queries with the tenant filter and the time range outside the user's query. Newest-first
 * pages are the index sort, so collection stops early. The deadline is checked between documents and, on a
 * {@link DirectoryReader}, while a query enumerates terms.
 */
final class LuceneShardSearcher implements ShardSearcher {
    /** Above this many hits the total is reported as a lower bound (newest-first pages stay nearly free). */
    private static final int TOTAL_HITS_THRESHOLD = 1000;

    private final ShardId id;
    private final IndexReader reader;
    private final Closeable release;
    private final CompiledQueries queries;
    /** What the reading side keeps between requests. */
    private final ReadCaches caches;
    /** Where a grid's buckets lie in each sorted segment, for every histogram this view counts with that grid. */
    private final TimeSortedRuns.Memo runs = new TimeSortedRuns.Memo();

    private boolean closed;

    /** The reader this view searches (until {@link #close}). */
    IndexReader reader() {
        return reader;
    }

    LuceneShardSearcher(ShardId id, IndexReader reader, Closeable release, CompiledQueries queries, ReadCaches caches) {
        this.id = id;
        this.reader = reader;
        this.release = release;
        this.queries = queries;
        this.caches = caches;
    }

    @Override
    public ShardId shard() {
        return id;
    }

    @Override
    public int docs() {
        return reader.numDocs();
    }

    private static Sort sort(Order order) {
        return order == Order.NEWEST_FIRST
                ? IndexSchema.indexSort()
                : new Sort(
                        new SortField(Fields.EVENT_TIME, SortField.Type.LONG, false),
                        new SortField(Fields.RECORD_ID, SortField.Type.STRING, true));
    }

    /**
     * Phase one: the keys of up to {@code limit} hits after {@code after} (null: from the start) in the given order,
     * no stored field read. Newest first is the index sort, so Lucene stops collecting a segment once the page is full
     * and {@link #TOTAL_HITS_THRESHOLD} hits are counted; oldest first over a whole shard without a deadline (the
     * archiver reading a day) walks the segments backwards instead ({@link OldestFirstWalk}).
     */
    @Override
    public Keys keys(ShardQuery q, Order order, After after, int limit, long deadlineNanos) throws IOException {
        if (order == Order.OLDEST_FIRST
                && id.kind() == ShardKind.RECORDS
                && OldestFirstWalk.applies(q, deadlineNanos)) {
            Optional<Keys> walked = OldestFirstWalk.keys(reader, q, after, limit);
            if (walked.isPresent()) {
                return walked.get();
            }
        }
        IndexSearcher s = searcher(deadlineNanos);
        FieldDoc a = after == null
                ? null
                : new FieldDoc(Integer.MAX_VALUE, Float.NaN, new Object[] {
                    after.eventTimeMillis(), new BytesRef(after.recordId())
                });
        TopFieldDocs top = run(s, query(q), new TopFieldCollectorManager(sort(order), limit, a, TOTAL_HITS_THRESHOLD));
        List<Key> keys = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            FieldDoc fd = (FieldDoc) sd;
            keys.add(new Key((Long) fd.fields[0], id(fd.fields[1]), sd.doc));
        }
        return new Keys(keys, top.totalHits.value, top.totalHits.relation == TotalHits.Relation.EQUAL_TO);
    }

    /** Sources of at least this many documents in one call are read block by block ({@link StoredFieldsPool#sequential}). */
    static final int BULK_SOURCES = 2_000;

    /**
     * Read in document order through one pooled stored-fields reader per segment ({@link StoredFieldsPool}), or, for
     * {@link #BULK_SOURCES} documents or more, one that decompresses each block once ({@link StoredFieldsPool#sequential}).
     */
    @Override
    public String[] sources(int[] docs, SourceBudget budget) throws IOException {
        Integer[] byDoc = new Integer[docs.length];
        for (int i = 0; i < docs.length; i++) {
            byDoc[i] = i;
        }
        Arrays.sort(byDoc, (x, y) -> Integer.compare(docs[x], docs[y]));
        List<LeafReaderContext> leaves = reader.leaves();
        String[] out = new String[docs.length];
        SourceVisitor v = new SourceVisitor();
        LeafReaderContext leaf = null;
        StoredFields stored = null;
        boolean bulk = docs.length >= BULK_SOURCES;
        for (int i : byDoc) {
            if (leaf == null || docs[i] >= leaf.docBase + leaf.reader().maxDoc()) {
                if (stored != null && !bulk) {
                    StoredFieldsPool.give(leaf.reader(), stored);
                }
                leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
                stored = bulk ? StoredFieldsPool.sequential(leaf.reader()) : StoredFieldsPool.take(leaf.reader());
            }
            v.value = null;
            v.refused = false;
            v.index = i;
            v.budget = budget;
            stored.document(docs[i] - leaf.docBase, v); // on a failure the reader is dropped, not given back
            if (v.value == null && !v.refused) {
                throw new IOException("shard " + id + ": document " + docs[i] + " has no stored source");
            }
            out[i] = v.value;
        }
        if (stored != null && !bulk) {
            StoredFieldsPool.give(leaf.reader(), stored);
        }
        return out;
    }

    /**
     * The keys of up to {@code limit} hits sorted by a whole-number structured field ({@code log.offset}), then the
     * merge key, no stored field read ({@link #sources} reads them while this searcher is open).
     */
    @Override
    public List<LongKey> longKeys(
            ShardQuery q, String structuredField, boolean ascending, int limit, long deadlineNanos) throws IOException {
        IndexSearcher s = searcher(deadlineNanos);
        Sort sort = new Sort(
                new SortField(
                        RecordDocuments.numericField(structuredField, FieldKind.LONG), SortField.Type.LONG, !ascending),
                new SortField(Fields.EVENT_TIME, SortField.Type.LONG, !ascending),
                new SortField(Fields.RECORD_ID, SortField.Type.STRING, !ascending));
        TopFieldDocs top = run(s, query(q), new TopFieldCollectorManager(sort, limit, null, limit));
        List<LongKey> out = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            FieldDoc fd = (FieldDoc) sd;
            out.add(new LongKey((Long) fd.fields[0], new Key((Long) fd.fields[1], id(fd.fields[2]), sd.doc)));
        }
        return out;
    }

    /**
     * The keys of up to {@code limit} hits in the order of a time field ({@code observed_time}) then record_id, after
     * ({@code afterTime}, {@code afterId}) (null: from the start), no stored field read; {@link LongKey#value} is the
     * time field's value, and so is the key's time.
     */
    @Override
    public List<LongKey> keysByTime(
            String timeField, ShardQuery q, long afterTime, String afterId, int limit, long deadlineNanos)
            throws IOException {
        IndexSearcher s = searcher(deadlineNanos);
        Sort sort = new Sort(
                new SortField(timeField, SortField.Type.LONG, false),
                new SortField(Fields.RECORD_ID, SortField.Type.STRING, false));
        FieldDoc after = afterId == null
                ? null
                : new FieldDoc(Integer.MAX_VALUE, Float.NaN, new Object[] {afterTime, new BytesRef(afterId)});
        TopFieldDocs top = run(s, query(q), new TopFieldCollectorManager(sort, limit, after, limit));
        List<LongKey> out = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            FieldDoc fd = (FieldDoc) sd;
            long t = (Long) fd.fields[0];
            out.add(new LongKey(t, new Key(t, id(fd.fields[1]), sd.doc)));
        }
        return out;
    }

    @Override
    public long count(ShardQuery q, long deadlineNanos) throws IOException {
        IndexSearcher s = searcher(deadlineNanos);
        try {
            int n = s.count(query(q));
            checkTime(s);
            return n;
        } catch (IndexSearcher.TooManyClauses e) {
            throw new IllegalArgumentException("query is too large: " + e.getMessage(), e);
        } catch (ExitableDirectoryReader.ExitingReaderException e) {
            throw new TimedOut(id);
        }
    }

    /**
     * One count per bucket. When the query is everything, or a conjunction of exact terms ({@link CoveringTerms}), each
     * segment whose documents are all the tenant's and all hold those terms is counted as a match-all ({@link
     * PointHistogram}) instead of document by document; in a segment where one term is not in every document, by that
     * term alone ({@link TimeSortedRuns#countTerm}), and otherwise only the terms that not every document holds are
     * walked ({@link CoveringTerms#uncovered}); the counts are the same.
     */
    @Override
    public long[] histogram(ShardQuery q, Histogram h, long deadlineNanos) throws IOException {
        List<Term> terms = conjunction(q);
        if (terms == null) {
            return run(searcher(deadlineNanos), query(q), LuceneAggregations.histogram(h, runs));
        }
        long[] counts = new long[h.buckets()];
        Term tenant = new Term(Fields.TENANT_ID, q.tenant());
        for (LeafReaderContext leaf : reader.leaves()) {
            checkTime(deadlineNanos);
            List<Term> rest = CoveringTerms.notInEveryDocument(leaf.reader(), terms, tenant);
            if (rest.isEmpty()
                    && PointHistogram.count(leaf.reader(), q.tenant(), q.fromMillis(), q.toMillis(), h, counts, runs)) {
                continue;
            }
            if (rest.size() == 1
                    && TimeSortedRuns.countTerm(
                            leaf.reader(),
                            rest.get(0),
                            q,
                            h,
                            runs,
                            caches.minutes(),
                            counts,
                            () -> checkTime(deadlineNanos))) {
                continue;
            }
            long[] more = run(
                    leafSearcher(leaf, deadlineNanos),
                    CoveringTerms.uncovered(rest, q),
                    LuceneAggregations.histogram(h, runs));
            for (int i = 0; i < counts.length; i++) {
                counts[i] += more[i];
            }
        }
        checkTime(deadlineNanos);
        return counts;
    }

    /** The exact terms the query (with its filters) is the conjunction of, none for everything; null otherwise. */
    private List<Term> conjunction(ShardQuery q) {
        List<Term> terms = new ArrayList<>();
        for (ShardQuery.Filter f : q.filters()) {
            if (!(f instanceof ShardQuery.Exact e)) {
                return null;
            }
            terms.add(new Term(luceneKeyword(e.field()), Fields.cap(e.value())));
        }
        if (q.query().root() instanceof QueryNode.MatchAll) {
            return terms;
        }
        String def = id.kind() == ShardKind.DEAD_LETTERS ? Fields.DL_RAW : Fields.MESSAGE;
        return CoveringTerms.collect(queries.compile(def, q.query()), terms) ? terms : null;
    }

    private void checkTime(long deadlineNanos) {
        if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) {
            throw new TimedOut(id);
        }
    }

    /** A searcher of one segment alone, with the deadline checked between documents. */
    private static IndexSearcher leafSearcher(LeafReaderContext leaf, long deadlineNanos) {
        IndexSearcher s = new IndexSearcher(leaf.reader());
        if (deadlineNanos != Long.MAX_VALUE) {
            s.setTimeout(new Deadline(deadlineNanos));
        }
        return s;
    }

    /**
     * Counts of every value of a keyword field among the matches (at most {@code maxValues} kept). When the query is
     * everything or a conjunction of exact terms every document of a segment holds ({@link CoveringTerms}), a segment
     * without deletions lying wholly in the range is counted from its terms' document frequencies instead of document
     * by document; the counts are the same.
     */
    @Override
    public Values values(ShardQuery q, String field, int maxValues, long deadlineNanos) throws IOException {
        String lf = luceneKeyword(field);
        LuceneAggregations.Tally tally = new LuceneAggregations.Tally(maxValues);
        try {
            List<Term> terms = conjunction(q);
            if (terms == null) {
                return run(searcher(deadlineNanos), query(q), LuceneAggregations.values(lf, tally))
                        .values();
            }
            Term tenant = new Term(Fields.TENANT_ID, q.tenant());
            for (LeafReaderContext leaf : reader.leaves()) {
                checkTime(deadlineNanos);
                List<Term> rest = CoveringTerms.notInEveryDocument(leaf.reader(), terms, tenant);
                if (rest.isEmpty()
                        && LuceneAggregations.countByDocFreq(
                                leaf.reader(), lf, q.tenant(), q.fromMillis(), q.toMillis(), tally)) {
                    continue;
                }
                run(
                        leafSearcher(leaf, deadlineNanos),
                        CoveringTerms.uncovered(rest, q),
                        LuceneAggregations.values(lf, tally));
            }
            checkTime(deadlineNanos);
            return tally.values();
        } catch (IllegalStateException e) { // not a keyword field
            throw new IllegalArgumentException("field " + field + " has no values to count: " + e.getMessage(), e);
        }
    }

    /** One reader, acquired when the searcher was opened: every call sees the same documents. */
    @Override
    public boolean pointInTime() {
        return true;
    }

    @Override
    public OptionalLong maxTime(String timeField) throws IOException {
        byte[] max = PointValues.getMaxPackedValue(reader, timeField);
        return max == null ? OptionalLong.empty() : OptionalLong.of(LongPoint.decodeDimension(max, 0));
    }

    /**
     * A searcher that stops at the deadline: between documents (Lucene's time-limited bulk scorer) and while a
     * query enumerates terms (a reader that checks the time, so rewriting a broad wildcard or regular expression
     * stops too).
     */
    private IndexSearcher searcher(long deadlineNanos) throws IOException {
        if (deadlineNanos == Long.MAX_VALUE) {
            return caches.keepTermWalks(new IndexSearcher(reader));
        }
        Deadline d = new Deadline(deadlineNanos);
        IndexSearcher s =
                new IndexSearcher(reader instanceof DirectoryReader dr ? new ExitableDirectoryReader(dr, d) : reader);
        s.setTimeout(d);
        return caches.keepTermWalks(s);
    }

    private <C extends Collector, T> T run(IndexSearcher s, Query query, CollectorManager<C, T> m) throws IOException {
        T out;
        try {
            out = s.search(query, m);
        } catch (IndexSearcher.TooManyClauses e) {
            throw new IllegalArgumentException("query is too large: " + e.getMessage(), e);
        } catch (ExitableDirectoryReader.ExitingReaderException e) {
            throw new TimedOut(id);
        }
        checkTime(s);
        return out;
    }

    private void checkTime(IndexSearcher s) {
        if (s.timedOut()) {
            throw new TimedOut(id);
        }
    }

    /** Reads only the stored source of a document, and only when the budget takes its length. */
    private static final class SourceVisitor extends StoredFieldVisitor {
        String value;
        boolean refused;
        int index;
        SourceBudget budget;

        @Override
        public void binaryField(FieldInfo fieldInfo, DataInput in, int length) throws IOException {
            if (!budget.take(index, length)) {
                refused = true;
                in.skipBytes(length);
                return;
            }
            byte[] v = new byte[length];
            in.readBytes(v, 0, length);
            value = new String(v, StandardCharsets.UTF_8);
        }

        @Override
        public Status needsField(FieldInfo fieldInfo) {
            if (fieldInfo.name.equals(Fields.SOURCE)) {
                return Status.YES;
            }
            return value == null && !refused ? Status.NO : Status.STOP;
        }
    }

    /** A sort value of {@code record_id}, copied out of Lucene's reused buffer. */
    private static IdBytes id(Object sortValue) {
        BytesRef b = (BytesRef) sortValue;
        return IdBytes.copyOf(b.bytes, b.offset, b.length);
    }

    /** The Lucene keyword field of a schema name: top-level as is, {@code fields.<name>} escaped. */
    static String luceneKeyword(String field) {
        return field.startsWith(Fields.FIELDS_PREFIX)
                ? RecordDocuments.keywordField(field.substring(Fields.FIELDS_PREFIX.length()))
                : field;
    }

    Query query(ShardQuery q) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        if (q.query().root() instanceof QueryNode.MatchAll) {
            b.add(new MatchAllDocsQuery(), BooleanClause.Occur.MUST);
        } else {
            String def = id.kind() == ShardKind.DEAD_LETTERS ? Fields.DL_RAW : Fields.MESSAGE;
            b.add(queries.compile(def, q.query()), BooleanClause.Occur.MUST);
        }
        b.add(new TermQuery(new Term(Fields.TENANT_ID, q.tenant())), BooleanClause.Occur.FILTER);
        b.add(LongPoint.newRangeQuery(Fields.EVENT_TIME, q.fromMillis(), q.toMillis() - 1), BooleanClause.Occur.FILTER);
        for (ShardQuery.Filter f : q.filters()) {
            if (f instanceof ShardQuery.Exact e) {
                b.add(
                        new TermQuery(new Term(luceneKeyword(e.field()), Fields.cap(e.value()))),
                        BooleanClause.Occur.FILTER);
            } else if (f instanceof ShardQuery.LongRange r) {
                String name = r.field().startsWith(Fields.FIELDS_PREFIX)
                        ? r.field().substring(Fields.FIELDS_PREFIX.length())
                        : r.field();
                b.add(
                        LongPoint.newRangeQuery(RecordDocuments.numericField(name, FieldKind.LONG), r.lo(), r.hi()),
                        BooleanClause.Occur.FILTER);
            } else if (f instanceof ShardQuery.ObservedRange o) {
                if (o.fromMillis() == o.toMillis()) {
                    b.add(new MatchNoDocsQuery("an empty observed_time range"), BooleanClause.Occur.FILTER);
                } else {
                    b.add(
                            LongPoint.newRangeQuery(Fields.OBSERVED_TIME, o.fromMillis(), o.toMillis() - 1),
                            BooleanClause.Occur.FILTER);
                }
            }
        }
        return b.build();
    }

    private record Deadline(long nanos) implements QueryTimeout {
        @Override
        public boolean shouldExit() {
            return System.nanoTime() - nanos > 0;
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            release.close();
        }
    }
}
