package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.logpipe.index.analysis.LogTokens;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The OpenSearch documents of records and dead letters, as the lines of a {@code _bulk} body: an {@code index} action
 * naming the index and the document id (the {@code record_id}: an index holds one tenant, so a replay overwrites and two
 * tenants never meet), then the document. The document holds the fields of {@link Fields}, the structured fields under
 * {@code fields} by their escaped names ({@link #fieldName}) with their typed companions, and the record as accepted in
 * {@value #SOURCE}.
 */
final class OpenSearchDocuments {
    static final String SOURCE = "source";
    private static final JsonFactory JSON = new JsonFactory().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private OpenSearchDocuments() {}

    /**
     * A structured field's name inside {@code fields}: {@code %}, {@code .} and {@code #} escaped as {@code %25},
     * {@code %2E} and {@code %23} (OpenSearch would read a dot as an object path, so {@code a.b} and {@code a} could not
     * both be kept), so a name never meets another or a typed companion ({@code <name>#long}, {@code <name>#double}).
     */
    static String fieldName(String name) {
        if (name.indexOf('%') < 0 && name.indexOf('.') < 0 && name.indexOf('#') < 0) {
            return name;
        }
        StringBuilder b = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> b.append("%25");
                case '.' -> b.append("%2E");
                case '#' -> b.append("%23");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** The name {@link #fieldName} escaped, or null for a name it cannot have written. */
    static String structuredName(String escaped) {
        if (escaped.indexOf('%') < 0) {
            return escaped.indexOf('#') < 0 ? escaped : null;
        }
        StringBuilder b = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c == '#') {
                return null;
            }
            if (c != '%') {
                b.append(c);
                continue;
            }
            String code = i + 3 <= escaped.length() ? escaped.substring(i + 1, i + 3) : "";
            switch (code) {
                case "25" -> b.append('%');
                case "2E" -> b.append('.');
                case "23" -> b.append('#');
                default -> {
                    return null;
                }
            }
            i += 2;
        }
        return b.toString();
    }

    /**
     * A generator for the lines of many documents, one after the other ({@link #record}, {@link #deadLetter}); made
     * once per body, as making one per document cost about a sixth of encoding it. It writes to {@code out} when
     * flushed or closed, and never closes {@code out}.
     */
    static JsonGenerator generator(OutputStream out) throws IOException {
        JsonGenerator g = JSON.createGenerator(out);
        g.setRootValueSeparator(null);
        return g;
    }

    /** A record's two lines (action and document), each ended by a newline, through a {@link #generator}. */
    static void record(JsonGenerator g, String index, IndexRecord r) throws IOException {
        LogRecord rec = r.record();
        action(g, index, rec.recordId());
        g.writeStartObject();
        keyword(g, Fields.RECORD_ID, rec.recordId());
        keyword(g, Fields.TENANT_ID, rec.tenantId());
        keyword(g, Fields.LEVEL, rec.level().name());
        keyword(g, Fields.SERVICE, rec.service());
        keyword(g, Fields.INSTANCE_ID, rec.instanceId());
        keyword(g, Fields.REGION, rec.region());
        keyword(g, Fields.TRACE_ID, rec.traceId());
        keyword(g, Fields.SPAN_ID, rec.spanId());
        g.writeNumberField(Fields.EVENT_TIME, r.eventTime().toEpochMilli());
        g.writeNumberField(Fields.OBSERVED_TIME, r.observedTime().toEpochMilli());
        g.writeStringField(Fields.MESSAGE, rec.message());
        if (LogTokens.runsWhole(rec.message())) {
            keyword(g, Fields.RUNS_WHOLE, Fields.MESSAGE);
        }
        if (!rec.fields().isEmpty()) {
            g.writeObjectFieldStart("fields");
            for (Map.Entry<String, Object> e : rec.fields().entrySet()) {
                structured(g, e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
        g.writeFieldName(SOURCE);
        g.writeUTF8String(r.source(), r.offset(), r.length()); // escaped from its bytes: no String made
        g.writeEndObject();
        g.writeRaw('\n');
    }

    /** A dead letter's two lines, as {@link #record}'s. */
    static void deadLetter(JsonGenerator g, String index, DeadLetterEntry d) throws IOException {
        action(g, index, d.id());
        g.writeStartObject();
        keyword(g, Fields.RECORD_ID, d.id());
        keyword(g, Fields.TENANT_ID, d.tenant());
        keyword(g, Fields.DL_REASON, d.reason());
        g.writeNumberField(Fields.EVENT_TIME, d.observedTime().toEpochMilli());
        g.writeNumberField(Fields.OBSERVED_TIME, d.observedTime().toEpochMilli());
        if (d.detail() != null) {
            g.writeStringField(Fields.DL_DETAIL, d.detail());
        }
        if (d.raw() != null) {
            g.writeStringField(Fields.DL_RAW, d.raw());
        }
        g.writeStringField(SOURCE, new String(d.source(), d.offset(), d.length(), StandardCharsets.UTF_8));
        g.writeEndObject();
        g.writeRaw('\n');
    }

    private static void action(JsonGenerator g, String index, String id) throws IOException {
        g.writeStartObject();
        g.writeObjectFieldStart("index");
        g.writeStringField("_index", index);
        g.writeStringField("_id", id);
        g.writeEndObject();
        g.writeEndObject();
        g.writeRaw('\n');
    }

    private static void keyword(JsonGenerator g, String field, String value) throws IOException {
        if (value != null) {
            g.writeStringField(field, Fields.cap(value));
        }
    }

    private static void structured(JsonGenerator g, String name, Object value) throws IOException {
        String field = fieldName(name);
        FieldKind kind = FieldKind.of(value);
        g.writeStringField(field, Fields.cap(value instanceof String s ? s : value.toString()));
        if (kind == FieldKind.LONG) {
            g.writeNumberField(field + FieldKind.LONG.suffix(), ((Number) value).longValue());
        } else if (kind == FieldKind.DOUBLE) {
            double v = ((Number) value).doubleValue();
            if (Double.isFinite(v)) {
                g.writeNumberField(field + FieldKind.DOUBLE.suffix(), v);
            }
        }
    }
}
