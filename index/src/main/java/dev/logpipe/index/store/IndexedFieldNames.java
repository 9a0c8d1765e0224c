package dev.logpipe.index.store;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.schema.RecordDocuments;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The structured field names one shard indexes: the first {@code limit} distinct names met in write order, plus
 * {@link Fields#PIPELINE_FIELDS}; any other name is left out of the index (the stored source keeps it). Built from the
 * index's own field names when the shard opens, so a restart and a replay of the same records decide the same way
 * and the set never outgrows the cap. Used by the shard's one writing thread.
 */
final class IndexedFieldNames implements Predicate<String> {
    private final Set<String> names = new HashSet<>();
    private final int limit;

    /** @param luceneFields every Lucene field name the shard's index holds (its field infos) */
    IndexedFieldNames(Iterable<String> luceneFields, int limit) {
        this.limit = limit;
        for (String f : luceneFields) {
            String name = RecordDocuments.structuredName(f);
            if (name != null && !Fields.PIPELINE_FIELDS.contains(name)) {
                names.add(name); // an index written before the cap (or under a higher one) keeps all its names
            }
        }
    }

    /** Whether a field of this name is indexed; a name not seen before takes a free place if there is one. */
    @Override
    public boolean test(String name) {
        if (names.contains(name) || Fields.PIPELINE_FIELDS.contains(name)) {
            return true;
        }
        if (names.size() >= limit) {
            return false;
        }
        names.add(name);
        return true;
    }

    /** Whether the name is indexed, without taking a place. */
    boolean indexed(String name) {
        return names.contains(name) || Fields.PIPELINE_FIELDS.contains(name);
    }

    int size() {
        return names.size();
    }
}
