package dev.logpipe.collector.internal.compat;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import java.io.IOException;

/**
 * The length-delimited fields of a protobuf message held whole in memory (an OTLP or Loki body), found as slices of
 * it without copying: each nested message is read through a stream over its own bytes.
 */
public final class ProtoFields {
    /** A length-delimited field's bytes: {@code [off, off + len)} of the body. */
    public record Slice(int off, int len) {}

    private final byte[] body;

    public ProtoFields(byte[] body) {
        this.body = body;
    }

    /**
     * The next field {@code number} (length-delimited) of {@code in}, which reads the body from {@code base}, skipping
     * the other fields; null at the end.
     */
    public Slice next(CodedInputStream in, int base, int number) throws IOException {
        while (true) {
            int tag = in.readTag();
            if (tag == 0) {
                return null;
            }
            if (WireFormat.getTagFieldNumber(tag) == number
                    && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int len = in.readRawVarint32();
                int off = base + in.getTotalBytesRead();
                if (len < 0 || off + len > body.length) {
                    throw new InvalidProtocolBufferException("a length-delimited field runs past the end of the body");
                }
                in.skipRawBytes(len);
                return new Slice(off, len);
            }
            in.skipField(tag);
        }
    }

    /** A stream over a field's bytes. */
    public CodedInputStream open(Slice s) {
        return CodedInputStream.newInstance(body, s.off(), s.len());
    }
}
