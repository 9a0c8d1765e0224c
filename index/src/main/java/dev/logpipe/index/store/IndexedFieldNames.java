package dev.logpipe.index.store;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.schema.RecordDocuments;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The structured field names one shard indexes: the first {@code limit} distinct names met in write order, plus
 * {@link Fields#PIPELINE_FIELDS}; any other name is left out of the index (the stored source keeps it). Built from the
 * index's own field names when the shard opens, so a restart and a replay of the same records decide the same way
 * and the set never outgrows the cap.
 *
 * <p>Per record: {@link #test} decides each field once, as the document is built; a name new to the shard takes its
 * place only when the record was written ({@link #written}), so a record the index refuses takes none. Used by the
 * shard's one writing thread.
 */
final class IndexedFieldNames implements Predicate<String> {
    /** The names indexed, the pipeline's own among them (so a decision is one lookup). */
    private final Set<String> names = new HashSet<>(Fields.PIPELINE_FIELDS);

    private final int limit;
    /** Names of the record being built that are new to the shard: taken by {@link #written}. */
    private final List<String> pending = new ArrayList<>();
    /** Names of the record being built that are not indexed. */
    private final Set<String> leftOut = new HashSet<>();

    /** @param luceneFields every Lucene field name the shard's index holds (its field infos) */
    IndexedFieldNames(Iterable<String> luceneFields, int limit) {
        this.limit = limit;
        for (String f : luceneFields) {
            String name = RecordDocuments.structuredName(f);
            if (name != null) {
                names.add(name); // an index written before the cap (or under a higher one) keeps all its names
            }
        }
    }

    /** Starts a record: forgets the decisions of the last one. */
    void begin() {
        pending.clear();
        leftOut.clear();
    }

    /** Whether a field of this name is indexed in the record being built; a new name needs a free place. */
    @Override
    public boolean test(String name) {
        if (names.contains(name)) {
            return true;
        }
        if (taken() + pending.size() >= limit) {
            leftOut.add(name);
            return false;
        }
        pending.add(name);
        return true;
    }

    /** The record was written: its new names take their places. */
    void written() {
        names.addAll(pending);
        pending.clear();
    }

    /** The names of the record just built that are not indexed (empty for most records). */
    Set<String> leftOut() {
        return leftOut;
    }

    private int taken() {
        return names.size() - Fields.PIPELINE_FIELDS.size();
    }
}
