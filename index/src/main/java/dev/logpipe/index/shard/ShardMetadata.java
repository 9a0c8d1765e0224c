package dev.logpipe.index.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.index.schema.FieldKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a planner may know of a shard without opening it ({@code shard.json}, docs/indexer.md#shard-metadata).
 *
 * <p>Contract: it is written, atomically, <em>before</em> each Lucene commit of the shard, so it describes a superset
 * of what the committed index holds: every label value and field present in the index is listed (unless the label is
 * in {@code truncatedLabels}, or {@code fieldsTruncated}), and every document's event time lies in
 * [{@code minEventTime}, {@code maxEventTime}]. {@code docs} is the live document count at the last commit (an
 * estimate for budgets, not a promise). Pruning a shard because a value is absent is therefore safe. {@code fields}
 * lists only indexed names; {@code fieldsNotIndexed} counts the fields left out of the index by the cap on distinct
 * names (docs/indexer.md#field-names).
 *
 * @param offsets the Kafka offsets ({@code topic-partition} to next offset) of the shard's last commit
 */
public record ShardMetadata(
        ShardKind kind,
        String tenant,
        LocalDate day,
        long docs,
        Instant minEventTime,
        Instant maxEventTime,
        SortedMap<String, SortedSet<String>> labels,
        SortedSet<String> truncatedLabels,
        SortedMap<String, SortedSet<FieldKind>> fields,
        boolean fieldsTruncated,
        FieldsNotIndexed fieldsNotIndexed,
        Instant updated,
        SortedMap<String, Long> offsets) {
    public static final int FORMAT = 1;
    /** Most names a shard's metadata keeps as examples of fields not indexed. */
    public static final int NOT_INDEXED_SAMPLE = 16;

    private static final ObjectMapper JSON = new ObjectMapper();

    public ShardMetadata {
        labels = deepCopy(labels);
        truncatedLabels = new TreeSet<>(truncatedLabels);
        fields = deepCopy(fields);
        fieldsNotIndexed = fieldsNotIndexed == null ? FieldsNotIndexed.NONE : fieldsNotIndexed;
        offsets = new TreeMap<>(offsets);
    }

    /**
     * Fields written to the shard but left out of its index because the shard already indexed as many distinct names
     * as its cap allows; they stay in the stored records. Counted per write (a replayed record counts again).
     *
     * @param records records with at least one field not indexed
     * @param values  field values not indexed
     * @param sample  some of their names (at most {@link #NOT_INDEXED_SAMPLE}, the first met)
     */
    public record FieldsNotIndexed(long records, long values, SortedSet<String> sample) {
        public static final FieldsNotIndexed NONE = new FieldsNotIndexed(0, 0, new TreeSet<>());

        public FieldsNotIndexed {
            if (records < 0 || values < records) {
                throw new IllegalArgumentException(
                        "records and values: must be 0 <= records <= values, were " + records + " and " + values);
            }
            sample = new TreeSet<>(sample);
        }
    }

    private static <V extends Comparable<V>> SortedMap<String, SortedSet<V>> deepCopy(Map<String, ? extends Set<V>> m) {
        SortedMap<String, SortedSet<V>> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, new TreeSet<>(v)));
        return out;
    }

    public static ShardMetadata empty(ShardId id) {
        return new ShardMetadata(
                id.kind(),
                id.tenant(),
                id.day(),
                0,
                null,
                null,
                new TreeMap<>(),
                new TreeSet<>(),
                new TreeMap<>(),
                false,
                FieldsNotIndexed.NONE,
                null,
                new TreeMap<>());
    }

    public ShardId id() {
        return new ShardId(kind, tenant, day);
    }

    public byte[] toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("format", FORMAT);
        o.put("kind", kind.name());
        o.put("tenant_id", tenant);
        o.put("day", day.toString());
        o.put("docs", docs);
        o.put("min_event_time", minEventTime == null ? null : minEventTime.toString());
        o.put("max_event_time", maxEventTime == null ? null : maxEventTime.toString());
        ObjectNode l = o.putObject("labels");
        labels.forEach((k, vs) -> vs.forEach(l.putArray(k)::add));
        ArrayNode tl = o.putArray("truncated_labels");
        truncatedLabels.forEach(tl::add);
        ObjectNode f = o.putObject("fields");
        fields.forEach((k, kinds) -> {
            ArrayNode a = f.putArray(k);
            kinds.forEach(kk -> a.add(kk.name()));
        });
        o.put("fields_truncated", fieldsTruncated);
        ObjectNode ni = o.putObject("fields_not_indexed");
        ni.put("records", fieldsNotIndexed.records());
        ni.put("values", fieldsNotIndexed.values());
        fieldsNotIndexed.sample().forEach(ni.putArray("sample")::add);
        o.put("updated", updated == null ? null : updated.toString());
        ObjectNode off = o.putObject("offsets");
        offsets.forEach(off::put);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o);
        } catch (JsonProcessingException e) {
            throw new AssertionError("a tree of strings and numbers always serializes", e);
        }
    }

    /** Writes {@code shard.json} atomically (temp, fsync, rename, directory fsync). */
    public void write(Path file) throws IOException {
        AtomicFile.write(file, toJson());
    }

    /**
     * Reads a metadata file; empty when it does not exist.
     *
     * @throws IOException the file cannot be read or is not shard metadata; the message names the file
     */
    public static Optional<ShardMetadata> read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            JsonNode o = JSON.readTree(bytes);
            if (o != null
                    && o.isObject()
                    && o.path("format").isInt()
                    && o.path("format").asInt() > FORMAT) {
                // not damage: a newer logpipe wrote it, and guessing at its fields could prune shards wrongly
                throw new NewerFormatException("shard metadata " + file + " is of format "
                        + o.path("format").asInt() + ", written by a newer logpipe; this build reads format "
                        + FORMAT + ": run the newer version (its shards are not readable by this one)");
            }
            if (o == null || !o.isObject() || o.path("format").asInt() != FORMAT) {
                throw new IOException("not shard metadata of format " + FORMAT);
            }
            SortedMap<String, SortedSet<String>> labels = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = o.path("labels").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                SortedSet<String> vs = new TreeSet<>();
                e.getValue().forEach(v -> vs.add(v.asText()));
                labels.put(e.getKey(), vs);
            }
            SortedSet<String> truncated = new TreeSet<>();
            o.path("truncated_labels").forEach(v -> truncated.add(v.asText()));
            SortedMap<String, SortedSet<FieldKind>> fields = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = o.path("fields").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                SortedSet<FieldKind> ks = new TreeSet<>();
                for (JsonNode k : e.getValue()) {
                    ks.add(FieldKind.valueOf(k.asText()));
                }
                fields.put(e.getKey(), ks);
            }
            JsonNode ni = o.path("fields_not_indexed"); // absent in a file written before the cap: none
            SortedSet<String> sample = new TreeSet<>();
            ni.path("sample").forEach(v -> sample.add(v.asText()));
            FieldsNotIndexed notIndexed = new FieldsNotIndexed(
                    ni.path("records").asLong(), ni.path("values").asLong(), sample);
            SortedMap<String, Long> offsets = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = o.path("offsets").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                offsets.put(e.getKey(), e.getValue().asLong());
            }
            return Optional.of(new ShardMetadata(
                    ShardKind.valueOf(o.path("kind").asText()),
                    o.path("tenant_id").asText(),
                    LocalDate.parse(o.path("day").asText()),
                    o.path("docs").asLong(),
                    time(o, "min_event_time"),
                    time(o, "max_event_time"),
                    labels,
                    truncated,
                    fields,
                    o.path("fields_truncated").asBoolean(),
                    notIndexed,
                    time(o, "updated"),
                    offsets));
        } catch (NewerFormatException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new IOException("shard metadata " + file + " is corrupt: " + e.getMessage(), e);
        }
    }

    /**
     * A shard written by a newer logpipe (its metadata, or its Lucene index, in a format this build does not read):
     * not damage, so never a reason to move the shard aside and rebuild it.
     */
    public static final class NewerFormatException extends IOException {
        public NewerFormatException(String message) {
            super(message);
        }
    }

    private static Instant time(JsonNode o, String key) {
        JsonNode v = o.get(key);
        return v == null || v.isNull() ? null : Instant.parse(v.asText());
    }
}
