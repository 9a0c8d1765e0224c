package dev.logpipe.collector.internal.compat.loki;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.logpipe.collector.internal.compat.DecodedLines;
import dev.logpipe.collector.internal.compat.JsonSlices;
import dev.logpipe.collector.internal.compat.ProtoFields;
import dev.logpipe.collector.internal.compat.ProtoFields.Slice;
import dev.logpipe.collector.internal.compat.WholeBody;
import dev.logpipe.collector.internal.ingest.BodyException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongPredicate;
import org.xerial.snappy.Snappy;

/**
 * A Loki {@code PushRequest} (pkg/push/push.proto: streams of labels and entries) in a snappy block, as one record
 * per entry. The snappy header's decoded length is checked against {@code limits.max_decoded_bytes} and reserved
 * <em>before</em> anything is allocated for it (a snappy bomb is a 413, not a heap), then the message is decoded
 * lazily with {@link CodedInputStream}: one stream's labels and one entry at a time.
 */
final class LokiProtoLines extends DecodedLines {
    private final byte[] body;
    private final ProtoFields fields;
    private final int maxRecordBytes;
    private final LongPredicate mayHold;
    private final CodedInputStream top;
    private CodedInputStream stream;
    private int streamBase;
    private Map<String, String> labels;
    private String labelProblem;

    private LokiProtoLines(byte[] body, int maxRecordBytes, LongPredicate mayHold) {
        this.body = body;
        this.fields = new ProtoFields(body);
        this.maxRecordBytes = maxRecordBytes;
        this.mayHold = mayHold;
        this.top = CodedInputStream.newInstance(body);
    }

    static LokiProtoLines open(InputStream in, int maxRecordBytes, long maxDecodedBytes, LongPredicate mayHold)
            throws IOException {
        byte[] compressed = WholeBody.read(in, mayHold);
        long length;
        try {
            length = Snappy.uncompressedLength(compressed);
        } catch (IOException e) {
            throw new BodyException(400, "the body is not a snappy block: " + e.getMessage());
        }
        if (length > maxDecodedBytes) {
            throw new BodyException(
                    413,
                    "the snappy body decompresses to " + length + " bytes, more than " + "limits.max_decoded_bytes ("
                            + maxDecodedBytes + ")");
        }
        if (!mayHold.test(compressed.length + length)) {
            throw WholeBody.overBound();
        }
        byte[] body = new byte[(int) length];
        try {
            Snappy.uncompress(compressed, 0, compressed.length, body, 0);
        } catch (IOException e) {
            throw new BodyException(400, "the body is not a valid snappy block: " + e.getMessage());
        }
        if (!mayHold.test(body.length)) { // the compressed bytes are garbage now
            throw WholeBody.overBound();
        }
        LokiProtoLines lines = new LokiProtoLines(body, maxRecordBytes, mayHold);
        lines.checkFraming();
        return lines;
    }

    private Slice next(CodedInputStream in, int base, int number) throws IOException {
        return fields.next(in, base, number);
    }

    private CodedInputStream open(Slice s) {
        return fields.open(s);
    }

    private void checkFraming() throws BodyException {
        try {
            CodedInputStream t = CodedInputStream.newInstance(body);
            for (Slice s; (s = next(t, 0, 1)) != null; ) {
                CodedInputStream in = open(s);
                while (next(in, s.off(), 2) != null) {
                    // each entry's framing is sound
                }
            }
        } catch (IOException e) {
            throw new BodyException(400, "the body is not a valid Loki PushRequest (protobuf): " + e.getMessage());
        }
    }

    @Override
    protected boolean advance() throws IOException {
        try {
            while (true) {
                if (stream != null) {
                    Slice e = next(stream, streamBase, 2);
                    if (e != null) {
                        entry(e);
                        return true;
                    }
                    stream = null;
                }
                Slice s = next(top, 0, 1);
                if (s == null) {
                    return false;
                }
                labels = Map.of();
                labelProblem = null;
                try {
                    String text = labelsOf(open(s));
                    labels = text == null ? Map.of() : LokiMapping.labels(text);
                } catch (IllegalArgumentException ex) {
                    labelProblem = ex.getMessage();
                }
                stream = open(s);
                streamBase = s.off();
            }
        } catch (InvalidProtocolBufferException e) {
            throw new BodyException(400, "the body is not a valid Loki PushRequest: " + e.getMessage());
        }
    }

    /** The {@code labels} string of a StreamAdapter (wherever it is among the entries), or null. */
    private static String labelsOf(CodedInputStream stream) throws IOException {
        String labels = null;
        for (int tag; (tag = stream.readTag()) != 0; ) {
            if (WireFormat.getTagFieldNumber(tag) == 1) {
                labels = stream.readStringRequireUtf8();
            } else {
                stream.skipField(tag);
            }
        }
        return labels;
    }

    private void entry(Slice e) throws IOException {
        if (e.len() > maxRecordBytes) {
            tooLong(e.len());
            return;
        }
        if (!mayHold.test(body.length + (long) JsonSlices.TREE_FACTOR * e.len())) {
            throw WholeBody.overBound();
        }
        long seconds = 0;
        int nanos = 0;
        String line = null;
        Map<String, String> metadata = new LinkedHashMap<>();
        try {
            CodedInputStream in = open(e);
            for (int tag; (tag = in.readTag()) != 0; ) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> {
                        CodedInputStream ts = in.readBytes().newCodedInput();
                        for (int t; (t = ts.readTag()) != 0; ) {
                            switch (WireFormat.getTagFieldNumber(t)) {
                                case 1 -> seconds = ts.readInt64();
                                case 2 -> nanos = ts.readInt32();
                                default -> ts.skipField(t);
                            }
                        }
                    }
                    case 2 -> line = in.readStringRequireUtf8();
                    case 3 -> {
                        CodedInputStream pair = in.readBytes().newCodedInput();
                        String name = null;
                        String value = "";
                        for (int t; (t = pair.readTag()) != 0; ) {
                            switch (WireFormat.getTagFieldNumber(t)) {
                                case 1 -> name = pair.readStringRequireUtf8();
                                case 2 -> value = pair.readStringRequireUtf8();
                                default -> pair.skipField(t);
                            }
                        }
                        if (name != null) {
                            metadata.put(name, value);
                        }
                    }
                    default -> in.skipField(tag);
                }
            }
        } catch (InvalidProtocolBufferException ex) {
            refuse(
                    "the entry is not valid protobuf: " + ex.getMessage(),
                    ("protobuf:" + HexFormat.of().formatHex(body, e.off(), e.off() + Math.min(e.len(), 32 * 1024)))
                            .getBytes());
            return;
        }
        if (labelProblem != null) {
            refuse(labelProblem, (line == null ? "" : line).getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (nanos < 0 || nanos > 999_999_999) {
            refuse(
                    "the entry's timestamp has nanos outside 0..999999999: " + nanos,
                    (line == null ? "" : line).getBytes(StandardCharsets.UTF_8));
            return;
        }
        try {
            emit(LokiMapping.toLine(labels, seconds, nanos, line, metadata));
        } catch (DateTimeException ex) {
            refuse(
                    "the entry's timestamp is out of range: " + seconds + " s",
                    (line == null ? "" : line).getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    protected long contextBytes() {
        return body.length;
    }
}
