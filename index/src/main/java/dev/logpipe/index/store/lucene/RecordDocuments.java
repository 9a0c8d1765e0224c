package dev.logpipe.index.store.lucene;

import dev.logpipe.index.analysis.LogTokens;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import java.time.Instant;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * Builds the Lucene document of a record or a dead letter (the field layout of {@link Fields}). The stored source
 * refers to the caller's bytes without copying them: they must stay unchanged until the document is added.
 */
public final class RecordDocuments {
    /** The value of {@link Fields#RUNS_WHOLE}, shared by every document (Lucene only reads it). */
    private static final BytesRef RUNS_WHOLE = new BytesRef(Fields.MESSAGE);

    private RecordDocuments() {}

    /** A record document with every structured field indexed. */
    public static Document record(
            LogRecord r, Instant eventTime, Instant observedTime, byte[] source, int off, int len) {
        return record(r, eventTime, observedTime, new BytesRef(source, off, len), name -> true);
    }

    /**
     * The document of {@code r}: its source the record as accepted, one JSON line without its newline.
     *
     * @param indexed asked once per structured field name, in the record's order: false leaves the field out of the
     *                index (the stored source still holds it)
     */
    public static Document record(IndexRecord r, Predicate<String> indexed) {
        return record(
                r.record(), r.eventTime(), r.observedTime(), new BytesRef(r.source(), r.offset(), r.length()), indexed);
    }

    /** @param eventTime the record's event time (the sort key); never null */
    private static Document record(
            LogRecord r, Instant eventTime, Instant observedTime, BytesRef source, Predicate<String> indexed) {
        Document d = new Document();
        keyword(d, Fields.RECORD_ID, r.recordId());
        keyword(d, Fields.TENANT_ID, r.tenantId());
        keyword(d, Fields.LEVEL, r.level().name());
        keyword(d, Fields.SERVICE, r.service());
        keyword(d, Fields.INSTANCE_ID, r.instanceId());
        keyword(d, Fields.REGION, r.region());
        keyword(d, Fields.TRACE_ID, r.traceId());
        keyword(d, Fields.SPAN_ID, r.spanId());
        time(d, Fields.EVENT_TIME, eventTime);
        time(d, Fields.OBSERVED_TIME, observedTime);
        d.add(new TextField(Fields.MESSAGE, r.message(), Field.Store.NO));
        if (LogTokens.runsWhole(r.message())) {
            d.add(new StringField(Fields.RUNS_WHOLE, RUNS_WHOLE, Field.Store.NO));
            d.add(new SortedDocValuesField(Fields.RUNS_WHOLE, RUNS_WHOLE));
        }
        for (Map.Entry<String, Object> e : r.fields().entrySet()) {
            if (indexed.test(e.getKey())) {
                structured(d, e.getKey(), e.getValue());
            }
        }
        d.add(new StoredField(Fields.SOURCE, source));
        return d;
    }

    /** A dead letter of the tenant: reason (keyword), detail and raw line (full text), sorted by observed time. */
    public static Document deadLetter(DeadLetterEntry e) {
        String recordId = e.id();
        String reason = e.reason();
        String detail = e.detail();
        String raw = e.raw();
        Instant observedTime = e.observedTime();
        Document d = new Document();
        keyword(d, Fields.RECORD_ID, recordId);
        keyword(d, Fields.TENANT_ID, e.tenant());
        keyword(d, Fields.DL_REASON, reason);
        time(d, Fields.EVENT_TIME, observedTime);
        time(d, Fields.OBSERVED_TIME, observedTime);
        if (detail != null) {
            d.add(new TextField(Fields.DL_DETAIL, detail, Field.Store.NO));
        }
        if (raw != null) {
            d.add(new TextField(Fields.DL_RAW, raw, Field.Store.NO));
        }
        d.add(new StoredField(Fields.SOURCE, new BytesRef(e.source(), e.offset(), e.length())));
        return d;
    }

    /** The Lucene field name of a structured field's keyword: '#' doubled, so no name can meet a numeric field. */
    public static String keywordField(String name) {
        return Fields.keyword(escape(name));
    }

    /** The Lucene field holding a numeric structured field's points and doc values. */
    public static String numericField(String name, FieldKind kind) {
        return Fields.numeric(escape(name), kind);
    }

    /**
     * The structured field name a Lucene field of {@link #keywordField} holds, or null for any other Lucene field (the
     * top-level fields, and the numeric companions of {@link #numericField}, whose name ends in an odd run of '#'
     * followed by a kind).
     */
    public static String structuredName(String luceneField) {
        if (!luceneField.startsWith(Fields.FIELDS_PREFIX)) {
            return null;
        }
        String rest = luceneField.substring(Fields.FIELDS_PREFIX.length());
        for (FieldKind kind : new FieldKind[] {FieldKind.LONG, FieldKind.DOUBLE}) {
            if (rest.endsWith(kind.suffix())) {
                int hashes = 0;
                for (int i = rest.length() - kind.suffix().length(); i >= 0 && rest.charAt(i) == '#'; i--) {
                    hashes++;
                }
                if (hashes % 2 == 1) { // an escaped name has only even runs: this '#' starts the kind suffix
                    return null;
                }
            }
        }
        return rest.indexOf('#') < 0 ? rest : rest.replace("##", "#");
    }

    private static String escape(String name) {
        return name.indexOf('#') < 0 ? name : name.replace("#", "##");
    }

    private static void structured(Document d, String name, Object value) {
        FieldKind kind = FieldKind.of(value);
        String text = value instanceof String s ? s : value.toString();
        keyword(d, keywordField(name), text);
        if (kind == FieldKind.LONG) {
            String f = numericField(name, kind);
            long v = ((Number) value).longValue();
            d.add(new LongPoint(f, v));
            d.add(new NumericDocValuesField(f, v));
        } else if (kind == FieldKind.DOUBLE) {
            String f = numericField(name, kind);
            double v = ((Number) value).doubleValue();
            d.add(new DoublePoint(f, v));
            d.add(new NumericDocValuesField(f, NumericUtils.doubleToSortableLong(v)));
        }
    }

    private static void keyword(Document d, String field, String value) {
        if (value == null) {
            return;
        }
        // One UTF-8 copy for the term and the doc value (a String term would be converted again by its token stream).
        BytesRef v = new BytesRef(Fields.cap(value));
        d.add(new StringField(field, v, Field.Store.NO));
        d.add(new SortedDocValuesField(field, v));
    }

    private static void time(Document d, String field, Instant t) {
        long ms = t.toEpochMilli();
        d.add(new LongPoint(field, ms));
        d.add(new NumericDocValuesField(field, ms));
    }
}
