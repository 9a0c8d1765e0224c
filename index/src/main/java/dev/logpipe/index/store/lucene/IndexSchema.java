package dev.logpipe.index.store.lucene;

import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.schema.Fields;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * The index-wide choices every shard shares: the index sort and the analyzers. The query service parses queries with
 * {@link #queryAnalyzer()} so that a query term is read the way the indexer wrote it.
 */
public final class IndexSchema {
    private IndexSchema() {}

    /**
     * Newest first, then {@code record_id}: a total order inside a shard (one tenant, so record_id is unique), which
     * makes newest-first pages and search-after cursors nearly free (docs/search.md).
     */
    public static Sort indexSort() {
        return new Sort(
                new SortField(Fields.EVENT_TIME, SortField.Type.LONG, true),
                new SortField(Fields.RECORD_ID, SortField.Type.STRING, false));
    }

    /** Full-text fields get the log analyzer with parts; everything else is a keyword (indexed as given). */
    public static Analyzer indexAnalyzer() {
        Analyzer log = LogAnalyzer.forIndexing();
        return new PerFieldAnalyzerWrapper(
                new KeywordAnalyzer(), Map.of(Fields.MESSAGE, log, Fields.DL_DETAIL, log, Fields.DL_RAW, log));
    }

    /** For query parsing: full-text terms as whole tokens (lower-cased), keyword fields exactly as typed. */
    public static Analyzer queryAnalyzer() {
        Analyzer log = LogAnalyzer.forQuery();
        return new PerFieldAnalyzerWrapper(
                new KeywordAnalyzer(), Map.of(Fields.MESSAGE, log, Fields.DL_DETAIL, log, Fields.DL_RAW, log));
    }
}
