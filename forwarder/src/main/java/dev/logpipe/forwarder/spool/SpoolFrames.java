package dev.logpipe.forwarder.spool;

import dev.logpipe.forwarder.sink.Batch;
import dev.logpipe.record.RecordId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The payload of one spool frame: one batch with its source and every record's offsets, followed by the records
 * exactly as they were encoded for the sink. {@link Spool} adds the length, record count and checksum around it.
 */
final class SpoolFrames {
    private static final int VERSION = 1;

    private SpoolFrames() {
    }

    static byte[] encode(Batch batch) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(batch.wire().size() + 64 + batch.size() * 24);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            Batch.Source src = batch.source();
            out.writeByte(VERSION);
            out.writeUTF(src.path());
            out.writeUTF(src.host());
            out.writeUTF(src.identity());
            out.writeBoolean(src.service() != null);
            if (src.service() != null) {
                out.writeUTF(src.service());
            }
            out.writeLong(src.ids().a());
            out.writeLong(src.ids().b());
            out.writeLong(batch.commitOffset());
            out.writeInt(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                out.writeLong(batch.startOffset(i));
                out.writeLong(batch.endOffset(i));
                out.writeInt(batch.lines(i));
                out.writeInt(batch.recordEnd(i));
            }
            int wireLength = batch.size() == 0 ? 0 : batch.recordEnd(batch.size() - 1);
            out.writeInt(wireLength);
            out.write(batch.wire().array(), 0, wireLength);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** Refills {@code into} from a frame's payload; the checksum has already been verified. */
    static void decode(byte[] payload, Batch into) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        int version = in.readUnsignedByte();
        if (version != VERSION) {
            throw new IOException("spool frame version " + version + " is not supported (this forwarder writes "
                    + VERSION + ")");
        }
        String path = in.readUTF();
        String host = in.readUTF();
        String identity = in.readUTF();
        String service = in.readBoolean() ? in.readUTF() : null;
        RecordId.Scope ids = new RecordId.Scope(in.readLong(), in.readLong());
        long commit = in.readLong();
        int n = in.readInt();
        long[] starts = new long[n];
        long[] ends = new long[n];
        int[] lines = new int[n];
        int[] recordEnds = new int[n];
        for (int i = 0; i < n; i++) {
            starts[i] = in.readLong();
            ends[i] = in.readLong();
            lines[i] = in.readInt();
            recordEnds[i] = in.readInt();
        }
        int wireLength = in.readInt();
        byte[] wire = in.readNBytes(wireLength);
        if (wire.length != wireLength) {
            throw new IOException("spool frame ends before its records (" + wire.length + " of " + wireLength
                    + " bytes)");
        }
        into.restore(new Batch.Source(path, host, ids, service, identity), wire, wireLength, recordEnds, starts, ends,
                lines, n, commit);
    }
}
