package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The structured field names one shard indexes: the first {@code limit} distinct names met in write order, plus
 * {@link Fields#PIPELINE_FIELDS}; any other name is left out of the index (the stored source keeps it). Built from the
 * index's own field names when the shard opens, so a restart and a replay of the same records decide the same way
 * and the set never outgrows the cap. A new name also needs room in its tenant's {@link FieldNameBudget} (bytes of
 * names across the tenant's open shards); a name left out for want of it is counted like one past the cap.
 *
 * <p>Per record: {@link #test} decides each field once, as the document is built; a name new to the shard takes its
 * place only when the record was written ({@link #written}), so a record the index refuses takes none. Used by the
 * shard's one writing thread.
 */
final class IndexedFieldNames implements Predicate<String> {
    /** The names indexed, the pipeline's own among them (so a decision is one lookup). */
    private final Set<String> names = new HashSet<>(Fields.PIPELINE_FIELDS);

    private final int limit;
    private final String tenant;
    private final FieldNameBudget budget;
    /** Bytes charged to the budget for the names taken, released by {@link #release}. */
    private long charged;
    /** Bytes charged for {@link #pending}: kept by {@link #written}, released by the next {@link #begin} otherwise. */
    private long pendingBytes;
    /** Names of the record being built that are new to the shard: taken by {@link #written}. */
    private final List<String> pending = new ArrayList<>();
    /** Names of the record being built that are not indexed. */
    private final Set<String> leftOut = new HashSet<>();

    /** @param luceneFields every Lucene field name the shard's index holds (its field infos) */
    IndexedFieldNames(Iterable<String> luceneFields, int limit, String tenant, FieldNameBudget budget) {
        this.limit = limit;
        this.tenant = tenant;
        this.budget = budget;
        for (String f : luceneFields) {
            String name = RecordDocuments.structuredName(f);
            if (name != null && names.add(name) && !Fields.PIPELINE_FIELDS.contains(name)) {
                charged += FieldNameBudget.cost(name); // an index written before the cap keeps all its names
            }
        }
        budget.force(tenant, charged);
    }

    /** Starts a record: forgets the decisions of the last one (a record not written gives its new names back). */
    void begin() {
        budget.release(tenant, pendingBytes);
        pendingBytes = 0;
        pending.clear();
        leftOut.clear();
    }

    /** Whether a field of this name is indexed in the record being built; a new name needs a free place. */
    @Override
    public boolean test(String name) {
        if (names.contains(name)) {
            return true;
        }
        long cost = FieldNameBudget.cost(name);
        if (taken() + pending.size() >= limit || !budget.take(tenant, cost)) {
            leftOut.add(name);
            return false;
        }
        pending.add(name);
        pendingBytes += cost;
        return true;
    }

    /** The record was written: its new names take their places. */
    void written() {
        names.addAll(pending);
        pending.clear();
        charged += pendingBytes;
        pendingBytes = 0;
    }

    /** The shard closes: its names leave the tenant's budget. Idempotent. */
    void release() {
        budget.release(tenant, charged + pendingBytes);
        charged = 0;
        pendingBytes = 0;
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
