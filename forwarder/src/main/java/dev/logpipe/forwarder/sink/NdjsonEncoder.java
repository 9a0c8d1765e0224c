package dev.logpipe.forwarder.sink;

import dev.logpipe.forwarder.process.Attributes;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.Level;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Encodes batch records as schema-v3 JSON (DESIGN.md section 3) straight from their bytes: the same
 * shape {@code RecordCodec} reads. The forwarder sets {@code record_id} (host, file identity, start
 * offset), {@code instance_id} (host), {@code service} when known, and fields {@code log.file.path},
 * {@code log.offset}; {@code event_time}, {@code observed_time} and {@code tenant_id} are the collector's.
 */
public final class NdjsonEncoder {
    private static final byte[] HEAD = "{\"schema_version\":3,\"record_id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGE = ",\"message\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "}}\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUNCATED = ",\"log.truncated\":true".getBytes(StandardCharsets.US_ASCII);

    private NdjsonEncoder() {
    }

    /** Appends one record as a JSON object followed by a newline. */
    public static void encode(Batch.Source src, byte[] message, int off, int length, long startOffset,
                              boolean truncated, Attributes attrs, JsonBuffer out) {
        out.ensureCapacity(HEAD.length + RecordId.LENGTH + 2);
        out.raw(HEAD);
        src.ids().writeAt(startOffset, out.array(), out.size());
        out.advance(RecordId.LENGTH);
        if (attrs == null) {
            out.raw(src.afterId);
        } else {
            if (attrs.service() != null) {
                out.raw(src.afterIdNoService).ascii(",\"service\":").string(attrs.service());
            } else {
                out.raw(src.afterId);
            }
            if (attrs.level() != null) {
                out.ascii(",\"level\":\"").ascii(Level.normalize(attrs.level()).name()).raw((byte) '"');
            }
            if (attrs.traceId() != null) {
                out.ascii(",\"trace_id\":").string(attrs.traceId());
            }
            if (attrs.spanId() != null) {
                out.ascii(",\"span_id\":").string(attrs.spanId());
            }
        }
        out.raw(MESSAGE);
        out.string(message, off, length);
        out.raw(src.afterMessage);
        out.number(startOffset);
        if (truncated) {
            out.raw(TRUNCATED);
        }
        if (attrs != null) {
            for (Map.Entry<String, String> f : attrs.fields().entrySet()) {
                out.raw((byte) ',').string(f.getKey()).raw((byte) ':').string(f.getValue());
            }
        }
        out.raw(END);
    }
}
