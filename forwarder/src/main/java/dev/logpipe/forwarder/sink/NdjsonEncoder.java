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

    /** Appends every record of the batch in {@code format}, one per line. */
    public static void encodeAll(Batch batch, dev.logpipe.forwarder.config.ForwarderConfig.Format format,
                                 JsonBuffer out) {
        boolean raw = format == dev.logpipe.forwarder.config.ForwarderConfig.Format.RAW;
        for (int i = 0; i < batch.size(); i++) {
            if (raw) {
                encodeRaw(batch, i, out);
            } else {
                encode(batch, i, out);
            }
        }
    }

    /** Appends record {@code i} of the batch as one JSON object followed by a newline. */
    public static void encode(Batch batch, int i, JsonBuffer out) {
        Batch.Source src = batch.source();
        Attributes attrs = batch.attributes(i);
        int length = batch.length(i);
        out.ensureCapacity(HEAD.length + RecordId.LENGTH + 2);
        out.raw(HEAD);
        src.ids().writeAt(batch.startOffset(i), out.array(), out.size());
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
        out.string(batch.arena(), batch.offset(i), length);
        out.raw(src.afterMessage);
        out.number(batch.startOffset(i));
        if (batch.truncated(i)) {
            out.raw(TRUNCATED);
        }
        if (attrs != null) {
            for (Map.Entry<String, String> f : attrs.fields().entrySet()) {
                out.raw((byte) ',').string(f.getKey()).raw((byte) ':').string(f.getValue());
            }
        }
        out.raw(END);
    }

    /** Appends record {@code i}'s text as it was read, followed by a newline. */
    public static void encodeRaw(Batch batch, int i, JsonBuffer out) {
        out.raw(batch.arena(), batch.offset(i), batch.length(i));
        out.raw((byte) '\n');
    }

}
