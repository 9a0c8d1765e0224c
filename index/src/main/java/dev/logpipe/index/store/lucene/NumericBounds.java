package dev.logpipe.index.store.lucene;

import dev.logpipe.index.query.NumericRange;
import dev.logpipe.index.schema.FieldKind;
import java.math.BigDecimal;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * A range on a numeric structured field as Lucene point ranges, its bounds' arithmetic from
 * {@link NumericRange} (the engine-neutral copy every engine uses).
 */
final class NumericBounds {
    private NumericBounds() {}

    /** The {@code LONG} form of {@code fields.<name>} between the bounds. */
    static Query longRange(String name, BigDecimal lo, boolean loInclusive, BigDecimal hi, boolean hiInclusive) {
        return NumericRange.whole(lo, loInclusive, hi, hiInclusive)
                .<Query>map(w ->
                        LongPoint.newRangeQuery(RecordDocuments.numericField(name, FieldKind.LONG), w.lo(), w.hi()))
                .orElseGet(() -> new MatchNoDocsQuery("no whole number lies between the bounds"));
    }

    /** The {@code DOUBLE} form of {@code fields.<name>} between the bounds. */
    static Query doubleRange(String name, BigDecimal lo, boolean loInclusive, BigDecimal hi, boolean hiInclusive) {
        return NumericRange.decimal(lo, loInclusive, hi, hiInclusive)
                .<Query>map(d ->
                        DoublePoint.newRangeQuery(RecordDocuments.numericField(name, FieldKind.DOUBLE), d.lo(), d.hi()))
                .orElseGet(() -> new MatchNoDocsQuery("the bound is past the largest double"));
    }
}
