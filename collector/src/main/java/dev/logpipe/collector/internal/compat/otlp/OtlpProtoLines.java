package dev.logpipe.collector.internal.compat.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.logpipe.collector.internal.compat.DecodedLines;
import dev.logpipe.collector.internal.compat.ProtoFields;
import dev.logpipe.collector.internal.compat.ProtoFields.Slice;
import dev.logpipe.collector.internal.compat.RecordTree;
import dev.logpipe.collector.internal.compat.WholeBody;
import dev.logpipe.collector.internal.ingest.BodyException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.function.LongPredicate;

/**
 * An OTLP {@code ExportLogsServiceRequest} in protobuf (opentelemetry/proto/collector/logs/v1) as one record per
 * {@code LogRecord}, decoded lazily with protobuf-java's {@link CodedInputStream} over the body held whole: only the
 * current resource's attributes, the current scope and one record are decoded at a time. The framing of the whole
 * message is checked before the first record is taken (a broken body is a 400 with nothing claimed); a record whose
 * own fields are broken is refused alone (the answer's partial success counts it).
 */
final class OtlpProtoLines extends DecodedLines {
    static final int TREE_FACTOR = 32;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final byte[] body;
    private final ProtoFields fields;
    private final int maxRecordBytes;
    private final LongPredicate mayHold;
    private final CodedInputStream top;
    private CodedInputStream resourceLogs;
    private CodedInputStream scopeLogs;
    private ObjectNode resource;
    private String scopeName;
    private String scopeVersion;

    OtlpProtoLines(byte[] body, int maxRecordBytes, LongPredicate mayHold) throws BodyException {
        this.body = body;
        this.fields = new ProtoFields(body);
        this.maxRecordBytes = maxRecordBytes;
        this.mayHold = mayHold;
        try {
            checkFraming();
        } catch (IOException e) {
            throw new BodyException(
                    400, "the body is not a valid OTLP ExportLogsServiceRequest (protobuf): " + e.getMessage());
        }
        this.top = CodedInputStream.newInstance(body);
    }

    private Slice next(CodedInputStream in, int base, int number) throws IOException {
        return fields.next(in, base, number);
    }

    private CodedInputStream open(Slice s) {
        return fields.open(s);
    }

    private void checkFraming() throws IOException {
        CodedInputStream t = CodedInputStream.newInstance(body);
        for (Slice rl; (rl = next(t, 0, 1)) != null; ) {
            CodedInputStream r = open(rl);
            for (Slice sl; (sl = next(r, rl.off(), 2)) != null; ) {
                CodedInputStream s = open(sl);
                while (next(s, sl.off(), 2) != null) {
                    // each log record's framing is sound
                }
            }
        }
    }

    @Override
    protected boolean advance() throws IOException {
        try {
            while (true) {
                if (scopeLogs != null) {
                    Slice lr = next(scopeLogs, scopeBase, 2);
                    if (lr != null) {
                        record(lr);
                        return true;
                    }
                    scopeLogs = null;
                }
                if (resourceLogs != null) {
                    Slice sl = next(resourceLogs, resourceBase, 2);
                    if (sl != null) {
                        openScope(sl);
                        continue;
                    }
                    resourceLogs = null;
                }
                Slice rl = next(top, 0, 1);
                if (rl == null) {
                    return false;
                }
                openResource(rl);
            }
        } catch (InvalidProtocolBufferException e) {
            throw new BodyException(400, "the body is not a valid OTLP ExportLogsServiceRequest: " + e.getMessage());
        }
    }

    private int resourceBase;
    private int scopeBase;

    private void openResource(Slice rl) throws IOException {
        resource = null;
        Slice res = next(open(rl), rl.off(), 1);
        if (res != null) {
            reserve(res.len());
            resource = NODES.objectNode();
            CodedInputStream in = open(res);
            for (Slice kv; (kv = next(in, res.off(), 1)) != null; ) {
                keyValue(open(kv), resource, 0);
            }
        }
        resourceLogs = open(rl);
        resourceBase = rl.off();
    }

    private void openScope(Slice sl) throws IOException {
        scopeName = null;
        scopeVersion = null;
        Slice scope = next(open(sl), sl.off(), 1);
        if (scope != null) {
            CodedInputStream in = open(scope);
            for (int tag; (tag = in.readTag()) != 0; ) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> scopeName = in.readStringRequireUtf8();
                    case 2 -> scopeVersion = in.readStringRequireUtf8();
                    default -> in.skipField(tag);
                }
            }
        }
        scopeLogs = open(sl);
        scopeBase = sl.off();
    }

    private void reserve(int len) throws BodyException {
        if (!mayHold.test(body.length + (long) TREE_FACTOR * len)) {
            throw WholeBody.overBound();
        }
    }

    private void record(Slice lr) throws IOException {
        if (lr.len() > maxRecordBytes) {
            tooLong(lr.len());
            return;
        }
        reserve(lr.len());
        RecordTree r = new RecordTree();
        long time = 0;
        long observed = 0;
        long severity = 0;
        String severityText = null;
        JsonNode bodyValue = null;
        ObjectNode attributes = NODES.objectNode();
        byte[] traceId = null;
        byte[] spanId = null;
        try {
            CodedInputStream in = open(lr);
            for (int tag; (tag = in.readTag()) != 0; ) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> time = in.readFixed64();
                    case 11 -> observed = in.readFixed64();
                    case 2 -> severity = in.readEnum();
                    case 3 -> severityText = in.readStringRequireUtf8();
                    case 5 -> bodyValue = anyValue(in.readBytes().newCodedInput(), 0);
                    case 6 -> keyValue(in.readBytes().newCodedInput(), attributes, 0);
                    case 9 -> traceId = in.readByteArray();
                    case 10 -> spanId = in.readByteArray();
                    case 12 -> r.field("otel.event_name", in.readStringRequireUtf8());
                    case 7 -> {
                        int dropped = in.readUInt32();
                        if (dropped > 0) {
                            r.field("otel.dropped_attributes_count", dropped);
                        }
                    }
                    default -> in.skipField(tag);
                }
            }
        } catch (InvalidProtocolBufferException e) {
            refuse("the LogRecord is not valid protobuf: " + e.getMessage(), hexOf(lr));
            return;
        }
        OtlpMapping.resource(r, resource);
        OtlpMapping.scope(r, scopeName, scopeVersion);
        OtlpMapping.times(r, time, observed);
        OtlpMapping.severity(r, severity, severityText);
        OtlpMapping.body(r, bodyValue);
        r.top("trace_id", OtlpMapping.hex(traceId));
        r.top("span_id", OtlpMapping.hex(spanId));
        OtlpMapping.attributes(r, attributes);
        emit(r.toLine());
    }

    private byte[] hexOf(Slice s) {
        int n = Math.min(s.len(), 32 * 1024);
        return ("protobuf:" + HexFormat.of().formatHex(body, s.off(), s.off() + n)).getBytes(StandardCharsets.US_ASCII);
    }

    private static void keyValue(CodedInputStream in, ObjectNode into, int depth) throws IOException {
        String key = null;
        JsonNode value = null;
        for (int tag; (tag = in.readTag()) != 0; ) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> key = in.readStringRequireUtf8();
                case 2 -> value = anyValue(in.readBytes().newCodedInput(), depth + 1);
                default -> in.skipField(tag);
            }
        }
        if (key != null && value != null) {
            into.set(key, value);
        }
    }

    /** An {@code AnyValue} as JSON: string, bool, int, double, bytes (base64), array, key-value list. */
    private static JsonNode anyValue(CodedInputStream in, int depth) throws IOException {
        if (depth > 16) {
            throw new InvalidProtocolBufferException("values nested deeper than 16");
        }
        JsonNode v = NODES.nullNode();
        for (int tag; (tag = in.readTag()) != 0; ) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> v = NODES.textNode(in.readStringRequireUtf8());
                case 2 -> v = NODES.booleanNode(in.readBool());
                case 3 -> v = NODES.numberNode(in.readInt64());
                case 4 -> v = NODES.numberNode(in.readDouble());
                case 5 -> {
                    ArrayNode a = NODES.arrayNode();
                    CodedInputStream arr = in.readBytes().newCodedInput();
                    for (int t; (t = arr.readTag()) != 0; ) {
                        if (WireFormat.getTagFieldNumber(t) == 1) {
                            a.add(anyValue(arr.readBytes().newCodedInput(), depth + 1));
                        } else {
                            arr.skipField(t);
                        }
                    }
                    v = a;
                }
                case 6 -> {
                    ObjectNode o = NODES.objectNode();
                    CodedInputStream kvs = in.readBytes().newCodedInput();
                    for (int t; (t = kvs.readTag()) != 0; ) {
                        if (WireFormat.getTagFieldNumber(t) == 1) {
                            keyValue(kvs.readBytes().newCodedInput(), o, depth + 1);
                        } else {
                            kvs.skipField(t);
                        }
                    }
                    v = o;
                }
                case 7 -> v = NODES.textNode(Base64.getEncoder().encodeToString(in.readByteArray()));
                default -> in.skipField(tag);
            }
        }
        return v;
    }

    @Override
    protected long contextBytes() {
        return body.length;
    }

    static OtlpProtoLines open(InputStream in, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        return new OtlpProtoLines(WholeBody.read(in, mayHold), maxRecordBytes, mayHold);
    }
}
