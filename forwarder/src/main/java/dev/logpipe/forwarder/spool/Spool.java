package dev.logpipe.forwarder.spool;

import dev.logpipe.forwarder.config.ForwarderConfig.WhenFull;
import dev.logpipe.forwarder.sink.SinkBusyException;
import dev.logpipe.forwarder.watermark.AtomicFiles;
import dev.logpipe.forwarder.watermark.StateException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded on-disk queue of frames in numbered segment files ({@code 00000000000000000001.seg}, ...). A frame
 * is {@code int length, int records, int crc32c} followed by its payload, and is fsynced before {@link #append}
 * returns. The drainer takes frames in order with {@link #next} and confirms them with {@link #acknowledge}; the
 * position up to which every frame is delivered is kept in the {@code cursor} file, and a segment is deleted
 * once it is delivered to its end. After a crash the frames after the cursor are delivered again (at least
 * once); a frame torn by the crash at the end of the newest segment was never acknowledged to the reader, so it
 * is cut off. Thread-safe: one writer and one drainer.
 */
public final class Spool implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Spool.class);
    static final int HEADER = 12;
    private static final String SUFFIX = ".seg";
    /** How long an append waits for space (policy block) before telling its caller to retry. */
    private static final Duration FULL_WAIT = Duration.ofMillis(500);

    /** A frame handed to the drainer: where it is and what it holds. */
    public record Frame(long segment, long offset, long end, int records, byte[] payload) {
    }

    private static final class Segment {
        long bytes;
        long pendingRecords;
        /** End of the last frame the sink acknowledged: everything before it is delivered. */
        long ackedTo;
    }

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final WhenFull whenFull;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private long bytes;
    private long droppedRecords;
    private FileChannel writer;
    private long writeSegment;
    private long readSegment;
    private long readOffset;
    private FileChannel reader;
    private long readerSegment = -1;
    private boolean closed;

    private Spool(Path dir, long maxBytes, long segmentBytes, WhenFull whenFull) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.whenFull = whenFull;
    }

    /**
     * Opens (or creates) the spool in {@code dir} and recovers what an earlier run left.
     *
     * @throws StateException a segment or the cursor file is corrupt (named in the message)
     */
    public static Spool open(Path dir, long maxBytes, long segmentBytes, WhenFull whenFull)
            throws IOException, StateException {
        Files.createDirectories(dir);
        Spool s = new Spool(dir, maxBytes, segmentBytes, whenFull);
        s.recover();
        return s;
    }

    private void recover() throws IOException, StateException {
        long[] cursor = readCursor();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                long id = segmentId(f);
                if (id < cursor[0] || Files.size(f) == 0) {
                    Files.delete(f); // delivered (the crash came before it was removed), or never written
                } else {
                    segments.put(id, new Segment());
                }
            }
        }
        long last = segments.isEmpty() ? cursor[0] : segments.lastKey();
        for (Map.Entry<Long, Segment> e : segments.entrySet()) {
            long from = e.getKey() == cursor[0] ? cursor[1] : 0;
            scan(e.getKey(), e.getValue(), from, e.getKey() == last);
            e.getValue().ackedTo = Math.min(from, e.getValue().bytes);
            bytes += e.getValue().bytes;
        }
        readSegment = segments.isEmpty() ? last + 1 : segments.firstKey();
        readOffset = segments.isEmpty() || readSegment != cursor[0] ? 0 : cursor[1];
        writeSegment = last;
        roll(); // a fresh segment per run; earlier ones are sealed (and deleted if fully delivered)
        long pending = pendingRecords();
        if (pending > 0) {
            log.info("spool holds {} records ({} bytes) from an earlier run path={}; delivering them first", pending,
                    bytes, dir);
        }
    }

    /** Counts the records after {@code from} and cuts a torn frame at the end of the newest segment. */
    private void scan(long id, Segment seg, long from, boolean newest) throws IOException, StateException {
        Path file = segmentPath(id);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            long pos = 0;
            while (pos < size) {
                FrameRead r = readFrame(ch, pos, size);
                if (r.payload == null) {
                    // Only the end of the newest segment may be torn: a frame cut short, or zeros after it.
                    boolean tornTail = newest && (r.end >= size || zerosFrom(ch, pos, size));
                    if (!tornTail) {
                        throw new StateException("spool segment " + file + " is corrupt at offset " + pos
                                + " (checksum or length does not match). Move the spool directory aside to start; "
                                + "the records it still held (after offset " + pos + ") are then lost");
                    }
                    log.warn("spool segment {} ends in a frame torn by a crash at offset {}; cut off (that batch was "
                            + "never confirmed, so it is read again from its source file)", file, pos);
                    ch.truncate(pos);
                    ch.force(true);
                    break;
                }
                if (pos >= from) {
                    seg.pendingRecords += r.records;
                }
                pos = r.end;
            }
            seg.bytes = Math.min(pos, size);
        }
    }

    /** A frame as read: {@code payload} is null when it is incomplete or does not match its checksum. */
    private record FrameRead(long end, int records, byte[] payload) {
    }

    /**
     * The frame at {@code pos}. The checksum covers the length, the record count and the payload; a frame has at
     * least one record and one payload byte, so zeros never pass for a frame.
     */
    private static FrameRead readFrame(FileChannel ch, long pos, long size) throws IOException {
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

    /**
     * Writes one frame and fsyncs it. When the spool is full: policy {@code block} waits a little for the drainer
     * and then throws {@link SinkBusyException} (the caller retries; files are not read meanwhile); policy
     * {@code drop_oldest} deletes the oldest segments and counts their undelivered records.
     */
    public void append(byte[] payload, int records) throws IOException {
        if (payload.length == 0 || records < 1) {
            throw new IllegalArgumentException("a spool frame holds at least one record");
        }
        ByteBuffer head = ByteBuffer.allocate(HEADER);
        head.putInt(payload.length).putInt(records).putInt(checksum(payload.length, records, payload)).flip();
        ByteBuffer[] frame = {head, ByteBuffer.wrap(payload)};
        long need = HEADER + payload.length;
        lock.lock();
        try {
            ensureOpen();
            Segment current = segments.get(writeSegment);
            if (current.bytes > 0 && current.bytes + need > segmentBytes) {
                roll();
            }
            makeRoom(need);
            current = segments.get(writeSegment);
            writer.position(current.bytes); // only this thread writes, always at the end of the segment
            while (frame[1].hasRemaining()) {
                writer.write(frame);
            }
            writer.force(false);
            current.bytes += need;
            current.pendingRecords += records;
            bytes += need;
            changed.signalAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for room in the spool", e);
        } finally {
            lock.unlock();
        }
    }

    private void makeRoom(long need) throws IOException, InterruptedException {
        long waitNanos = FULL_WAIT.toNanos();
        // An empty spool takes any one frame, even one larger than max_bytes: a batch must always fit somewhere.
        while (bytes > 0 && bytes + need > maxBytes && !closed) {
            if (whenFull == WhenFull.DROP_OLDEST) {
                if (segments.size() == 1) {
                    roll(); // the only segment is the one being written: seal it so it can go
                }
                dropOldest();
                continue;
            }
            if (waitNanos <= 0) {
                throw new SinkBusyException("spool " + dir + " is full (" + bytes + " of " + maxBytes + " bytes, "
                        + "when_full: block): files are not read until the sink drains it", Duration.ofMillis(100));
            }
            waitNanos = changed.awaitNanos(waitNanos);
        }
        ensureOpen();
    }

    private void dropOldest() throws IOException {
        long id = segments.firstKey();
        Segment seg = segments.remove(id);
        bytes -= seg.bytes;
        droppedRecords += seg.pendingRecords;
        if (readerSegment == id) {
            reader.close();
            readerSegment = -1;
        }
        Files.deleteIfExists(segmentPath(id));
        if (readSegment <= id) {
            readSegment = segments.firstKey();
            readOffset = 0;
        }
        writeCursor(segments.firstKey(), segments.firstEntry().getValue().ackedTo);
        log.warn("spool {} is full (max_bytes {}): dropped its oldest segment with {} undelivered records "
                + "(when_full: drop_oldest; counted in log_forwarder_spool_records_dropped_total)", dir, maxBytes,
                seg.pendingRecords);
    }

    /** Seals the segment being written and starts the next; the state changes only once the new file is open. */
    private void roll() throws IOException {
        FileChannel next = FileChannel.open(segmentPath(writeSegment + 1), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        if (writer != null) {
            writer.close();
        }
        writer = next;
        writeSegment++;
        segments.put(writeSegment, new Segment());
        AtomicFiles.fsyncDirectory(dir);
        deleteDelivered();
    }

    /**
     * Deletes sealed segments, oldest first, whose every frame the sink acknowledged, and records in the cursor
     * where delivery stands: the first remaining segment, up to its last acknowledged frame. Never moves back.
     */
    private void deleteDelivered() throws IOException {
        while (segments.firstKey() < writeSegment) {
            long id = segments.firstKey();
            Segment seg = segments.get(id);
            if (seg.ackedTo < seg.bytes) {
                break;
            }
            segments.remove(id);
            bytes -= seg.bytes;
            if (readerSegment == id) {
                reader.close();
                readerSegment = -1;
            }
            Files.deleteIfExists(segmentPath(id));
        }
        writeCursor(segments.firstKey(), segments.firstEntry().getValue().ackedTo);
    }

    /**
     * The next frame after the last one handed out, waiting up to {@code timeout} for one; null if none came.
     * Frames are handed out in order; the same frame is not handed out twice in one run.
     */
    public Frame next(Duration timeout) throws IOException, InterruptedException {
        long waitNanos = timeout.toNanos();
        lock.lock();
        try {
            while (!closed) {
                Segment seg = segments.get(readSegment);
                if (seg == null) {
                    Long later = segments.ceilingKey(readSegment);
                    if (later == null) {
                        readSegment = writeSegment;
                        readOffset = 0;
                    } else {
                        readSegment = later;
                        readOffset = 0;
                    }
                    continue;
                }
                if (readOffset < seg.bytes) {
                    FrameRead r = readFrame(channelFor(readSegment), readOffset, seg.bytes);
                    if (r.payload == null) {
                        throw new IOException("spool segment " + segmentPath(readSegment) + " is corrupt at offset "
                                + readOffset + " (checksum does not match)");
                    }
                    Frame f = new Frame(readSegment, readOffset, r.end, r.records, r.payload);
                    readOffset = r.end;
                    return f;
                }
                if (readSegment < writeSegment) {
                    readSegment = segments.higherKey(readSegment);
                    readOffset = 0;
                    continue;
                }
                if (waitNanos <= 0) {
                    return null;
                }
                waitNanos = changed.awaitNanos(waitNanos);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    private FileChannel channelFor(long id) throws IOException {
        if (readerSegment != id) {
            if (reader != null) {
                reader.close();
            }
            reader = FileChannel.open(segmentPath(id), StandardOpenOption.READ);
            readerSegment = id;
        }
        return reader;
    }

    /**
     * The sink confirmed {@code f}: everything up to its end is delivered. A segment delivered to its end (and no
     * longer written) is deleted. A frame of a segment that drop_oldest removed meanwhile changes nothing.
     */
    public void acknowledge(Frame f) throws IOException {
        lock.lock();
        try {
            Segment seg = segments.get(f.segment());
            if (seg == null) {
                return;
            }
            seg.pendingRecords -= f.records();
            seg.ackedTo = Math.max(seg.ackedTo, f.end());
            deleteDelivered();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A frame that cannot be delivered (unreadable payload) is given up: counted as dropped and passed over. */
    public void discard(Frame f) throws IOException {
        lock.lock();
        try {
            if (segments.containsKey(f.segment())) {
                droppedRecords += f.records();
            }
        } finally {
            lock.unlock();
        }
        acknowledge(f);
    }

    private long[] readCursor() throws IOException, StateException {
        Path file = dir.resolve("cursor");
        if (!Files.exists(file)) {
            return new long[] {0, 0};
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        String[] parts = text.split(" ");
        try {
            if (parts.length != 2) {
                throw new NumberFormatException(text);
            }
            long[] c = {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
            if (c[0] < 0 || c[1] < 0) {
                throw new NumberFormatException(text);
            }
            return c;
        } catch (NumberFormatException e) {
            throw new StateException("spool cursor file " + file + " is corrupt (expected \"<segment> <offset>\", "
                    + "found \"" + text + "\"). Move the spool directory aside to start");
        }
    }

    private void writeCursor(long segment, long offset) throws IOException {
        AtomicFiles.write(dir.resolve("cursor"), (segment + " " + offset + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    private Path segmentPath(long id) {
        return dir.resolve(String.format("%020d%s", id, SUFFIX));
    }

    private static long segmentId(Path f) throws StateException {
        String name = f.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
        } catch (NumberFormatException e) {
            throw new StateException("spool directory holds a file that is not a segment: " + f
                    + " (remove it or use another sink.spool.path)");
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("spool " + dir + " is closed");
        }
    }

    public long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Records written and not yet confirmed by the sink. */
    public long pendingRecords() {
        lock.lock();
        try {
            long n = 0;
            for (Segment s : segments.values()) {
                n += s.pendingRecords;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    public long droppedRecords() {
        lock.lock();
        try {
            return droppedRecords;
        } finally {
            lock.unlock();
        }
    }

    public Path path() {
        return dir;
    }

    /** Wakes a waiting {@link #next} or {@link #append}; the files stay for the next run. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            changed.signalAll();
            if (writer != null) {
                writer.close();
            }
            if (reader != null) {
                reader.close();
            }
        } finally {
            lock.unlock();
        }
    }
}
