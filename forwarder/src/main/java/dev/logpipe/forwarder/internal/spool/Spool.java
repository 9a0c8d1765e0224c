package dev.logpipe.forwarder.internal.spool;

import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.forwarder.StateException;
import dev.logpipe.forwarder.config.ForwarderConfig.WhenFull;
import dev.logpipe.forwarder.internal.sink.SinkBusyException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded on-disk queue of frames in numbered segment files ({@link SegmentFormat}). A frame is fsynced before
 * {@link #append} returns. The drainer takes frames in order with {@link #next} and confirms them with {@link #acknowledge}; the
 * position up to which every frame is delivered is kept in the {@link SpoolCursor} file, and a segment is deleted
 * once it is delivered to its end. After a crash the frames after the cursor are delivered again (at least
 * once); a frame torn by the crash at the end of the newest segment was never acknowledged to the reader, so it
 * is cut off. Thread-safe: one writer and one drainer.
 */
public final class Spool implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Spool.class);
    /** How long an append waits for space (policy block) before telling its caller to retry. */
    private static final Duration FULL_WAIT = Duration.ofMillis(500);

    /** A frame handed to the drainer: where it is and what it holds. */
    public record Frame(long segment, long offset, long end, int records, byte[] payload) {}

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
        SpoolCursor cursor = SpoolCursor.read(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SegmentFormat.SUFFIX)) {
            for (Path f : files) {
                long id = SegmentFormat.segmentId(f);
                if (id < cursor.segment() || Files.size(f) == 0) {
                    Files.delete(f); // delivered (the crash came before it was removed), or never written
                } else {
                    segments.put(id, new Segment());
                }
            }
        }
        long last = segments.isEmpty() ? cursor.segment() : segments.lastKey();
        for (Map.Entry<Long, Segment> e : segments.entrySet()) {
            long from = e.getKey() == cursor.segment() ? cursor.offset() : 0;
            SegmentFormat.Scanned scanned = SegmentFormat.recover(segmentPath(e.getKey()), from, e.getKey() == last);
            Segment seg = e.getValue();
            seg.bytes = scanned.bytes();
            seg.pendingRecords = scanned.pendingRecords();
            seg.ackedTo = Math.min(from, seg.bytes);
            bytes += seg.bytes;
        }
        readSegment = segments.isEmpty() ? last + 1 : segments.firstKey();
        readOffset = segments.isEmpty() || readSegment != cursor.segment() ? 0 : cursor.offset();
        writeSegment = last;
        roll(); // a fresh segment per run; earlier ones are sealed (and deleted if fully delivered)
        long pending = pendingRecords();
        if (pending > 0) {
            log.info(
                    "spool holds {} records ({} bytes) from an earlier run path={}; delivering them first",
                    pending,
                    bytes,
                    dir);
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
        ByteBuffer[] frame = SegmentFormat.frame(payload, records);
        long need = SegmentFormat.HEADER + payload.length;
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
                throw new SinkBusyException(
                        "spool " + dir + " is full (" + bytes + " of " + maxBytes + " bytes, "
                                + "when_full: block): files are not read until the sink drains it",
                        Duration.ofMillis(100));
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
        log.warn(
                "spool {} is full (max_bytes {}): dropped its oldest segment with {} undelivered records "
                        + "(when_full: drop_oldest; counted in log_forwarder_spool_records_dropped_total)",
                dir,
                maxBytes,
                seg.pendingRecords);
    }

    /** Seals the segment being written and starts the next; the state changes only once the new file is open. */
    private void roll() throws IOException {
        FileChannel next =
                FileChannel.open(segmentPath(writeSegment + 1), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (writer != null) {
            writer.close();
        }
        writer = next;
        writeSegment++;
        segments.put(writeSegment, new Segment());
        AtomicFile.fsyncDirectory(dir);
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
                    SegmentFormat.FrameRead r = SegmentFormat.readFrame(channelFor(readSegment), readOffset, seg.bytes);
                    if (r.payload() == null) {
                        throw new IOException("spool segment " + segmentPath(readSegment) + " is corrupt at offset "
                                + readOffset + " (checksum does not match)");
                    }
                    Frame f = new Frame(readSegment, readOffset, r.end(), r.records(), r.payload());
                    readOffset = r.end();
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

    private void writeCursor(long segment, long offset) throws IOException {
        new SpoolCursor(segment, offset).write(dir);
    }

    private Path segmentPath(long id) {
        return SegmentFormat.segmentPath(dir, id);
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
