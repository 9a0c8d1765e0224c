package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.internal.parse.Emitter;
import dev.logpipe.forwarder.internal.parse.StructuredLine;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.forwarder.internal.time.EventTimeWriter;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.Level;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Encodes batch records as schema-v3 JSON (docs/record-format.md) straight from their bytes: the same
 * shape {@code RecordCodec} reads. The forwarder sets {@code record_id} (host, file identity, start
 * offset), {@code event_time} when the line carried one, {@code instance_id} (host), {@code service} when
 * known, and fields {@code log.file.path}, {@code log.offset}; {@code observed_time} and {@code tenant_id}
 * are the collector's. A schema field a transform sets wins over the line's (JSON/logfmt keys), which wins
 * over the source's.
 *
 * <p>The bytes are {@code RecordCodec.encodeTo}'s for the same record, byte for byte: the codec owns the layout
 * (archive format 2 rebuilds sources with it and its day digests cover them, see {@code RecordCodec.encodeTo}), and
 * this encoder is a fast copy of it that must follow any change there. So the keys come in the codec's order
 * ({@code schema_version, record_id, event_time, trace_id, span_id, service, instance_id, region, level, message,
 * fields}), {@code level} is always written ({@code "UNKNOWN"} when nothing set it), strings are escaped by the same
 * {@code JsonBuffer.string} and numbers written by the same {@code JsonBuffer.number}; the file's shared fragments
 * ({@link SourceFile}) are split around the line's own keys to keep that order. {@code
 * NdjsonEncoderAgreesWithRecordCodecTest} holds the two to the same bytes for text lines. One input has no codec
 * counterpart: a line that is not valid UTF-8, which the codec only ever sees as a decoded {@code String}; here each
 * byte that does not start a well-formed sequence becomes U+FFFD, and the line is what the codec writes back for
 * the record it reads from it. Not covered, and not the codec's bytes in every case: the values of a line read as
 * JSON, which the readers copy as the line spells them where the codec writes the value it decoded: a number as
 * written ({@code 1.50}, {@code 1e3}, {@code -0}; the codec writes {@code 1.5}, {@code 1000.0}, {@code 0}, and an
 * integer past a long as a string), a {@code \/} escape the fast path keeps (the codec writes {@code /}), and a lone
 * surrogate from a backslash-u escape written as U+FFFD ({@code JsonChars}; the codec's {@code String.getBytes} writes
 * {@code ?}). The key order and the level are the codec's for those lines too; logfmt values were not checked.
 *
 * <p>{@code encode} takes the record as primitives and references (bytes, offsets, flags, the parsed body) rather than
 * a value record: it runs once per record on the reading thread's hot path and on the parse threads, and is called
 * with the parts of a {@code Batch.Line} or of a deferred record's arrays (not measured as a record itself; see
 * docs/benchmarks.md, "Value records on the per-line path").
 */
public final class NdjsonEncoder {
    private static final byte[] HEAD = "{\"schema_version\":3,\"record_id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT_TIME = ",\"event_time\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "}}\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUNCATED = ",\"log.truncated\":true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STDOUT = ",\"stream\":\"stdout\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STDERR = ",\"stream\":\"stderr\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARTIAL = ",\"log.partial\":true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARSE_ERROR = ",\"log.parse_error\":".getBytes(StandardCharsets.US_ASCII);

    /** {@code ,"level":"INFO","message":} and the others, by ordinal: the level is always written, as the codec does. */
    private static final byte[][] LEVEL_AND_MESSAGE = new byte[Level.values().length][];

    static {
        for (Level l : Level.values()) {
            LEVEL_AND_MESSAGE[l.ordinal()] =
                    (",\"level\":\"" + l.name() + "\",\"message\":").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private NdjsonEncoder() {}

    /** Appends one record as a JSON object followed by a newline (no event time, no structured line). */
    public static void encode(
            SourceFile src,
            byte[] message,
            int off,
            int length,
            long startOffset,
            boolean truncated,
            Attributes attrs,
            JsonBuffer out) {
        encode(src, message, off, length, startOffset, truncated, attrs, null, TimeParser.NONE, 0, null, out);
    }

    /**
     * Appends one record as a JSON object followed by a newline. {@code body} is a JSON/logfmt reader's result
     * (its message replaces the raw text unless it has an error), or null.
     */
    public static void encode(
            SourceFile src,
            byte[] message,
            int off,
            int length,
            long startOffset,
            boolean truncated,
            Attributes attrs,
            StructuredLine body,
            long eventTime,
            int flags,
            EventTimeWriter times,
            JsonBuffer out) {
        out.ensureCapacity(HEAD.length + RecordId.LENGTH + 2);
        out.raw(HEAD);
        src.ids().writeAt(startOffset, out.array(), out.size());
        out.advance(RecordId.LENGTH);
        out.raw((byte) '"');
        if (eventTime != TimeParser.NONE) {
            out.raw(EVENT_TIME);
            times.write(eventTime, out);
        }
        boolean structured = body != null && body.error() == null;
        if (attrs != null && attrs.traceId() != null) {
            out.ascii(",\"trace_id\":").string(attrs.traceId());
        } else if (structured && body.hasTraceId()) {
            out.ascii(",\"trace_id\":");
            body.writeTraceId(out);
        }
        if (attrs != null && attrs.spanId() != null) {
            out.ascii(",\"span_id\":").string(attrs.spanId());
        } else if (structured && body.hasSpanId()) {
            out.ascii(",\"span_id\":");
            body.writeSpanId(out);
        }
        String service = attrs != null && attrs.service() != null
                ? attrs.service()
                : structured && body.service() != null ? body.service() : null;
        if (service != null) {
            out.ascii(",\"service\":").string(service).raw(src.instance);
        } else {
            out.raw(src.serviceAndInstance);
        }
        String region = attrs != null && attrs.region() != null ? attrs.region() : structured ? body.region() : null;
        if (region != null) {
            out.ascii(",\"region\":").string(region);
        }
        Level level = attrs != null && attrs.level() != null
                ? Level.normalize(attrs.level())
                : structured ? body.normalizedLevel() : null;
        out.raw(LEVEL_AND_MESSAGE[(level != null ? level : Level.UNKNOWN).ordinal()]);
        if (structured) {
            JsonBuffer m = body.messageJson();
            if (m.size() > 0) {
                out.raw(m.array(), 0, m.size());
            } else {
                out.ascii("\"\"");
            }
        } else {
            out.string(message, off, length);
        }
        out.raw(src.afterMessage);
        out.number(startOffset);
        if (truncated) {
            out.raw(TRUNCATED);
        }
        if ((flags & Emitter.STDOUT) != 0) {
            out.raw(STDOUT);
        } else if ((flags & Emitter.STDERR) != 0) {
            out.raw(STDERR);
        }
        if ((flags & Emitter.PARTIAL) != 0) {
            out.raw(PARTIAL);
        }
        if (body != null) {
            if (structured) {
                JsonBuffer f = body.fieldsJson();
                out.raw(f.array(), 0, f.size());
            } else {
                out.raw(PARSE_ERROR).string(body.error());
            }
        }
        if (attrs != null) {
            for (Map.Entry<String, String> f : attrs.fields().entrySet()) {
                out.raw((byte) ',').string(f.getKey()).raw((byte) ':').string(f.getValue());
            }
        }
        out.raw(END);
    }
}
