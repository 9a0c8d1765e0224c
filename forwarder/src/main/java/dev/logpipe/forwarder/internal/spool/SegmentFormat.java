package dev.logpipe.forwarder.internal.spool;

import dev.logpipe.forwarder.StateException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The on-disk layout of spool segments: files named by a 20-digit sequence number ({@code 00000000000000000001.seg}),
 * each a run of frames {@code int length, int records, int crc32c} + payload. The checksum covers the length, the
 * record count and the payload; a frame has at least one record and one payload byte, so zeros never pass for a frame.
 */
final class SegmentFormat {
    private static final Logger log = LoggerFactory.getLogger(SegmentFormat.class);
    static final int HEADER = 12;
    static final String SUFFIX = ".seg";

    private SegmentFormat() {}

    /** A frame as read: {@code payload} is null when it is incomplete or does not match its checksum. */
    record FrameRead(long end, int records, byte[] payload) {}

    /** What recovery found in a segment: its valid length and the records after the delivered position. */
    record Scanned(long bytes, long pendingRecords) {}

    static Path segmentPath(Path dir, long id) {
        return dir.resolve(String.format("%020d%s", id, SUFFIX));
    }

    static long segmentId(Path f) throws StateException {
        String name = f.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
        } catch (NumberFormatException e) {
            throw new StateException("spool directory holds a file that is not a segment: " + f
                    + " (remove it or use another sink.spool.path)");
        }
    }

    /** The header and payload of one frame, ready for a gathering write. */
    static ByteBuffer[] frame(byte[] payload, int records) {
        ByteBuffer head = ByteBuffer.allocate(HEADER);
        head.putInt(payload.length)
                .putInt(records)
                .putInt(checksum(payload.length, records, payload))
                .flip();
        return new ByteBuffer[] {head, ByteBuffer.wrap(payload)};
    }

    /** The frame at {@code pos} of a segment whose valid data ends at {@code size}. */
    static FrameRead readFrame(FileChannel ch, long pos, long size) throws IOException {
        if (size - pos < HEADER) {
            return new FrameRead(size, 0, null);
        }
        ByteBuffer head = ByteBuffer.allocate(HEADER);
        readFully(ch, head, pos);
        head.flip();
        int length = head.getInt();
        int records = head.getInt();
        int crc = head.getInt();
        if (length < 1 || records < 1) {
            return new FrameRead(pos + HEADER, 0, null);
        }
        long end = pos + HEADER + length;
        if (end > size) {
            return new FrameRead(end, 0, null);
        }
        ByteBuffer body = ByteBuffer.allocate(length);
        readFully(ch, body, pos + HEADER);
        if (checksum(length, records, body.array()) != crc) {
            return new FrameRead(end, 0, null);
        }
        return new FrameRead(end, records, body.array());
    }

    /**
     * Counts the records at or after {@code from} and cuts a frame torn by a crash at the end of the newest segment
     * (a frame cut short, or zeros after the last frame); anything else that does not read is corruption.
     *
     * @throws StateException the segment is corrupt before its end (named, with the offset)
     */
    static Scanned recover(Path file, long from, boolean newest) throws IOException, StateException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            long pos = 0;
            long pending = 0;
            while (pos < size) {
                FrameRead r = readFrame(ch, pos, size);
                if (r.payload() == null) {
                    boolean tornTail = newest && (r.end() >= size || zerosFrom(ch, pos, size));
                    if (!tornTail) {
                        throw new StateException("spool segment " + file + " is corrupt at offset " + pos
                                + " (checksum or length does not match). Move the spool directory aside to start; "
                                + "the records it still held (after offset " + pos + ") are then lost");
                    }
                    log.warn(
                            "spool segment {} ends in a frame torn by a crash at offset {}; cut off (that batch was "
                                    + "never confirmed, so it is read again from its source file)",
                            file,
                            pos);
                    ch.truncate(pos);
                    ch.force(true);
                    break;
                }
                if (pos >= from) {
                    pending += r.records();
                }
                pos = r.end();
            }
            return new Scanned(Math.min(pos, size), pending);
        }
    }

    private static int checksum(int length, int records, byte[] payload) {
        CRC32C c = new CRC32C();
        c.update(ByteBuffer.allocate(8).putInt(length).putInt(records).flip());
        c.update(payload, 0, length);
        return (int) c.getValue();
    }

    private static boolean zerosFrom(FileChannel ch, long pos, long size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        for (long at = pos; at < size; ) {
            buf.clear();
            int n = ch.read(buf, at);
            if (n <= 0) {
                return true;
            }
            for (int i = 0; i < n; i++) {
                if (buf.get(i) != 0) {
                    return false;
                }
            }
            at += n;
        }
        return true;
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf, pos + buf.position()) < 0) {
                throw new IOException("unexpected end of spool segment");
            }
        }
    }
}
