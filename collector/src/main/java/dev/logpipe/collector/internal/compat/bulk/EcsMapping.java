package dev.logpipe.collector.internal.compat.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.internal.compat.RecordTree;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;

/**
 * An Elasticsearch document (ECS or a shipper's own shape) as a schema-v3 record (docs/ingest.md#elasticsearch-bulk):
 * {@code @timestamp} (else {@code timestamp}; RFC 3339 or epoch milliseconds) is {@code event_time}; {@code message}, else {@code log}, is
 * the message; {@code log.level} or {@code level} the level; {@code service.name}, {@code service.node.name} or
 * {@code host.name}, {@code cloud.region}, {@code trace.id}, {@code span.id} the top-level fields; the action's
 * {@code _id} the {@code record_id}; everything else is kept in {@code fields} (nested objects flattened with dots by
 * the codec), and the target index in {@code fields."elasticsearch.index"}. Keys may be dotted or nested.
 */
final class EcsMapping {
    static final String INDEX_FIELD = "elasticsearch.index";

    private EcsMapping() {}

    /** The record line, or throws {@link IllegalArgumentException} with why the document cannot be one. */
    static byte[] toLine(ObjectNode doc, String index, String id) {
        RecordTree r = new RecordTree();
        JsonNode message = take(doc, "message");
        if (message == null) {
            message = take(doc, "log");
        }
        if (message == null) {
            throw new IllegalArgumentException("the document has neither a message nor a log field");
        }
        r.top("message", RecordTree.text(message));
        if (!r.has("message")) {
            r.top("message", " ");
        }
        JsonNode ts = take(doc, "@timestamp");
        if (ts == null) {
            ts = take(doc, "timestamp"); // Vector's default timestamp key
        }
        if (ts != null && ts.isNumber()) {
            r.eventTime(Instant.ofEpochMilli(ts.asLong()));
        } else {
            r.top("event_time", RecordTree.text(ts));
        }
        r.top("level", RecordTree.text(take(doc, "log.level")));
        r.top("level", RecordTree.text(take(doc, "level")));
        r.top("service", RecordTree.text(take(doc, "service.name")));
        r.top("instance_id", RecordTree.text(take(doc, "service.node.name")));
        r.top("instance_id", RecordTree.text(take(doc, "host.name")));
        if (!r.has("instance_id") && doc.path("host").isTextual()) {
            r.top("instance_id", RecordTree.text(doc.remove("host"))); // Vector's host key
        }
        r.top("region", RecordTree.text(take(doc, "cloud.region")));
        r.top("trace_id", RecordTree.text(take(doc, "trace.id")));
        r.top("span_id", RecordTree.text(take(doc, "span.id")));
        r.top("record_id", id);
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            r.field(e.getKey(), e.getValue());
        }
        r.field(INDEX_FIELD, index);
        return r.toLine();
    }

    /** Removes and returns the value at a dotted path, written dotted ({@code "log.level"}) or nested. */
    static JsonNode take(ObjectNode doc, String path) {
        JsonNode v = doc.remove(path);
        if (v != null) {
            return v;
        }
        int dot = path.indexOf('.');
        if (dot < 0) {
            return null;
        }
        for (int d = dot; d > 0; d = path.indexOf('.', d + 1)) {
            JsonNode child = doc.get(path.substring(0, d));
            if (child instanceof ObjectNode o) {
                JsonNode found = take(o, path.substring(d + 1));
                if (found != null) {
                    if (o.isEmpty()) {
                        doc.remove(path.substring(0, d));
                    }
                    return found;
                }
            }
        }
        return null;
    }
}
