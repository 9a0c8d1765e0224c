package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.SearchPage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.util.BytesRef;

/** Searches acquired shard searchers as one index; the tenant filter is added outside the user's query. */
final class LuceneSearcher implements StoreSearcher {
    private final List<ShardId> ids;
    private final List<SearcherManager> managers;
    private final List<IndexSearcher> acquired;
    private final IndexSearcher searcher;
    private boolean closed;

    LuceneSearcher(List<ShardId> ids, List<SearcherManager> managers, List<IndexSearcher> acquired) throws IOException {
        this.ids = List.copyOf(ids);
        this.managers = managers;
        this.acquired = acquired;
        IndexReader[] readers = new IndexReader[acquired.size()];
        for (int i = 0; i < readers.length; i++) {
            readers[i] = acquired.get(i).getIndexReader();
        }
        this.searcher = new IndexSearcher(new MultiReader(readers, false));
    }

    private Query query(SearchRequest r) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        String q = r.query().isBlank() ? "*:*" : r.query();
        b.add(new SchemaQueryParser().parseQuery(q), BooleanClause.Occur.MUST);
        b.add(new TermQuery(new Term(Fields.TENANT_ID, r.tenant())), BooleanClause.Occur.FILTER);
        if (r.from() != null || r.to() != null) {
            long lo = r.from() == null ? Long.MIN_VALUE : r.from().toEpochMilli();
            long hi = r.to() == null ? Long.MAX_VALUE : r.to().toEpochMilli() - 1;
            b.add(LongPoint.newRangeQuery(Fields.EVENT_TIME, lo, hi), BooleanClause.Occur.FILTER);
        }
        return b.build();
    }

    @Override
    public SearchPage search(SearchRequest r) throws IOException {
        Query q = query(r);
        FieldDoc after = r.after() == null
                ? null
                : new FieldDoc(Math.max(0, searcher.getIndexReader().maxDoc() - 1), Float.NaN, new Object[] {
                    r.after().eventTimeMillis(), new BytesRef(r.after().recordId())
                });
        TopFieldDocs top = (TopFieldDocs) searcher.searchAfter(after, q, r.limit(), IndexSchema.indexSort(), false);
        List<SearchPage.Hit> hits = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            FieldDoc fd = (FieldDoc) sd;
            Document d = searcher.storedFields().document(sd.doc);
            BytesRef src = d.getBinaryValue(Fields.SOURCE);
            int shard = ReaderUtil.subIndex(sd.doc, searcher.getIndexReader().leaves());
            int which = readerOf(shard);
            hits.add(new SearchPage.Hit(
                    new String(src.bytes, src.offset, src.length, StandardCharsets.UTF_8),
                    Instant.ofEpochMilli((Long) fd.fields[0]),
                    ((BytesRef) fd.fields[1]).utf8ToString(),
                    ids.get(which)));
        }
        SearchPage.After next = null;
        if (hits.size() == r.limit()) {
            SearchPage.Hit last = hits.get(hits.size() - 1);
            next = new SearchPage.After(last.eventTime().toEpochMilli(), last.recordId());
        }
        return new SearchPage(hits, top.totalHits.value, next);
    }

    /** Which acquired reader a leaf (by index in the MultiReader's leaves) belongs to. */
    private int readerOf(int leaf) {
        int seen = 0;
        for (int i = 0; i < acquired.size(); i++) {
            seen += acquired.get(i).getIndexReader().leaves().size();
            if (leaf < seen) {
                return i;
            }
        }
        throw new AssertionError("leaf " + leaf + " beyond " + seen);
    }

    @Override
    public long count(SearchRequest r) throws IOException {
        return searcher.count(query(r));
    }

    /** The reader of this view (one shard's when opened over one); valid until {@link #close}. */
    IndexReader reader() {
        return searcher.getIndexReader();
    }

    @Override
    public List<ShardId> shards() {
        return ids;
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < acquired.size(); i++) {
            managers.get(i).release(acquired.get(i));
        }
    }
}
