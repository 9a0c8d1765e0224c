package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.record.LogRecord;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Collects a shard's label values, indexed field kinds, fields not indexed and time range as documents are written.
 * Single-threaded.
 */
final class MetadataAccumulator {
    static final int MAX_LABEL_VALUES = 256;
    static final int MAX_FIELD_NAMES = 1000;

    private final ShardId id;
    private final Map<String, Set<String>> labels = new HashMap<>();
    private final Set<String> truncated = new HashSet<>();
    private final Map<String, Set<FieldKind>> fields = new HashMap<>();
    private boolean fieldsTruncated;
    private long notIndexedRecords;
    private long notIndexedValues;
    private final Set<String> notIndexedSample = new HashSet<>();
    private long minMillis = Long.MAX_VALUE;
    private long maxMillis = Long.MIN_VALUE;

    MetadataAccumulator(ShardMetadata start) {
        this.id = start.id();
        start.labels().forEach((k, v) -> labels.put(k, new HashSet<>(v)));
        truncated.addAll(start.truncatedLabels());
        start.fields().forEach((k, v) -> fields.put(k, EnumSet.copyOf(v)));
        fieldsTruncated = start.fieldsTruncated();
        notIndexedRecords = start.fieldsNotIndexed().records();
        notIndexedValues = start.fieldsNotIndexed().values();
        notIndexedSample.addAll(start.fieldsNotIndexed().sample());
        if (start.minEventTime() != null) {
            minMillis = start.minEventTime().toEpochMilli();
            maxMillis = start.maxEventTime().toEpochMilli();
        }
    }

    /**
     * Adds a written record.
     *
     * @param leftOut the names of its fields that were not indexed
     * @return how many of its fields were not indexed
     */
    int add(LogRecord r, Instant eventTime, Set<String> leftOut) {
        time(eventTime);
        label(Fields.LEVEL, r.level().name());
        label(Fields.SERVICE, r.service());
        label(Fields.INSTANCE_ID, r.instanceId());
        label(Fields.REGION, r.region());
        if (r.fields().isEmpty()) {
            return 0;
        }
        int notIndexed = 0;
        for (Map.Entry<String, Object> e : r.fields().entrySet()) {
            if (!leftOut.isEmpty() && leftOut.contains(e.getKey())) {
                notIndexed++;
                if (notIndexedSample.size() < ShardMetadata.NOT_INDEXED_SAMPLE) {
                    notIndexedSample.add(Fields.cap(e.getKey()));
                }
                continue;
            }
            Set<FieldKind> kinds = fields.get(e.getKey());
            if (kinds == null) {
                if (fields.size() >= MAX_FIELD_NAMES) {
                    fieldsTruncated = true;
                    continue;
                }
                kinds = EnumSet.noneOf(FieldKind.class);
                fields.put(e.getKey(), kinds);
            }
            kinds.add(FieldKind.of(e.getValue()));
        }
        if (notIndexed > 0) {
            notIndexedRecords++;
            notIndexedValues += notIndexed;
        }
        return notIndexed;
    }

    void time(Instant t) {
        long ms = t.toEpochMilli();
        if (ms < minMillis) {
            minMillis = ms;
        }
        if (ms > maxMillis) {
            maxMillis = ms;
        }
    }

    void label(String name, String value) {
        if (value == null || truncated.contains(name)) {
            return;
        }
        Set<String> values = labels.computeIfAbsent(name, k -> new HashSet<>());
        if (values.size() >= MAX_LABEL_VALUES && !values.contains(value)) {
            truncated.add(name);
            labels.remove(name);
            return;
        }
        values.add(Fields.cap(value));
    }

    ShardMetadata snapshot(long docs, Instant now, Map<String, Long> offsets) {
        TreeMap<String, SortedSet<String>> l = new TreeMap<>();
        labels.forEach((k, v) -> l.put(k, new TreeSet<>(v)));
        TreeMap<String, SortedSet<FieldKind>> f = new TreeMap<>();
        fields.forEach((k, v) -> f.put(k, new TreeSet<>(v)));
        boolean empty = minMillis == Long.MAX_VALUE;
        return new ShardMetadata(
                id.kind(),
                id.tenant(),
                id.day(),
                docs,
                empty ? null : Instant.ofEpochMilli(minMillis),
                empty ? null : Instant.ofEpochMilli(maxMillis),
                l,
                new TreeSet<>(truncated),
                f,
                fieldsTruncated,
                new ShardMetadata.FieldsNotIndexed(
                        notIndexedRecords, notIndexedValues, new TreeSet<>(notIndexedSample)),
                now,
                new TreeMap<>(offsets));
    }
}
