package dev.logpipe.forwarder.internal.spool;

import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.SourceFile;
import dev.logpipe.record.RecordId;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The payload of one spool frame: one batch with its source and every record's offsets, followed by the records
 * exactly as they were encoded for the sink. {@link Spool} adds the length, record count and checksum around it.
 * Big-endian; strings are an int length and UTF-8 bytes (length -1: absent).
 */
final class SpoolFrames {
    private static final int VERSION = 1;
    private static final int PER_RECORD = 8 + 8 + 4 + 4;

    private SpoolFrames() {}

    static byte[] encode(Batch batch) {
        SourceFile src = batch.source();
        byte[] path = utf8(src.path());
        byte[] host = utf8(src.host());
        byte[] identity = utf8(src.identity());
        byte[] service = src.service() == null ? null : utf8(src.service());
        int n = batch.size();
        int wireLength = n == 0 ? 0 : batch.recordEnd(n - 1);
        int size = 1
                + 4 * 4
                + path.length
                + host.length
                + identity.length
                + (service == null ? 0 : service.length)
                + 8 * 3
                + 4
                + n * PER_RECORD
                + 4
                + wireLength;
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put((byte) VERSION);
        putString(out, path);
        putString(out, host);
        putString(out, identity);
        putString(out, service);
        out.putLong(src.ids().a())
                .putLong(src.ids().b())
                .putLong(batch.commitOffset())
                .putInt(n);
        for (int i = 0; i < n; i++) {
            out.putLong(batch.startOffset(i))
                    .putLong(batch.endOffset(i))
                    .putInt(batch.lines(i))
                    .putInt(batch.recordEnd(i));
        }
        out.putInt(wireLength).put(batch.wire().array(), 0, wireLength);
        return out.array();
    }

    /** Refills {@code into} from a frame's payload (the checksum has already been verified); the records are not copied twice. */
    static void decode(byte[] payload, Batch into) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(payload);
        try {
            int version = in.get() & 0xFF;
            if (version != VERSION) {
                throw new IOException(
                        "spool frame version " + version + " is not supported (this forwarder writes " + VERSION + ")");
            }
            String path = getString(in);
            String host = getString(in);
            String identity = getString(in);
            String service = getString(in);
            RecordId.Scope ids = new RecordId.Scope(in.getLong(), in.getLong());
            long commit = in.getLong();
            int n = in.getInt();
            if (n < 0 || (long) n * PER_RECORD > in.remaining()) {
                throw new IOException("spool frame claims " + n + " records but is too short for them");
            }
            long[] starts = new long[n];
            long[] ends = new long[n];
            int[] lines = new int[n];
            int[] recordEnds = new int[n];
            for (int i = 0; i < n; i++) {
                starts[i] = in.getLong();
                ends[i] = in.getLong();
                lines[i] = in.getInt();
                recordEnds[i] = in.getInt();
            }
            int wireLength = in.getInt();
            if (wireLength != in.remaining()) {
                throw new IOException(
                        "spool frame holds " + in.remaining() + " bytes of records, its header says " + wireLength);
            }
            into.restore(
                    new SourceFile(path, host, ids, service, identity),
                    payload,
                    in.position(),
                    wireLength,
                    new Batch.RecordTable(n, recordEnds, starts, ends, lines),
                    commit);
        } catch (BufferUnderflowException e) {
            throw new IOException("spool frame ends before its header does", e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void putString(ByteBuffer out, byte[] s) {
        if (s == null) {
            out.putInt(-1);
        } else {
            out.putInt(s.length).put(s);
        }
    }

    private static String getString(ByteBuffer in) throws IOException {
        int len = in.getInt();
        if (len == -1) {
            return null;
        }
        if (len < 0 || len > in.remaining()) {
            throw new IOException("spool frame has a string of " + len + " bytes where " + in.remaining() + " remain");
        }
        String s = new String(in.array(), in.position(), len, StandardCharsets.UTF_8);
        in.position(in.position() + len);
        return s;
    }
}
