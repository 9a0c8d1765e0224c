package dev.logpipe.forwarder.internal.watermark;

import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.forwarder.StateException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watermark file of one forwarder process (docs/watermarks-and-restarts.md). Updates are kept in memory and written to
 * disk atomically by {@link #flushIfDue} and {@link #flush}. A lock file next to it keeps a second
 * process from sharing it. Confined to one thread (the pipeline's), except {@link #close}.
 */
public final class WatermarkStore implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(WatermarkStore.class);
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);

    /** What to do with a watermark file that cannot be read. */
    public enum OnCorrupt {
        REFUSE,
        RESET
    }

    private final Path path;
    private final FlushPolicy policy;
    private final InstantSource clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Map<String, Watermark> entries;
    private long pendingUpdates;
    private Instant lastFlush;
    private boolean closed;

    private WatermarkStore(
            Path path,
            FlushPolicy policy,
            InstantSource clock,
            FileChannel lockChannel,
            FileLock lock,
            Map<String, Watermark> entries) {
        this.path = path;
        this.policy = policy;
        this.clock = clock;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.entries = entries;
        this.lastFlush = clock.instant();
    }

    /**
     * Locks and loads the watermark file at {@code path}; a missing file is an empty store.
     *
     * @throws StateException if the file is corrupt and {@code onCorrupt} is REFUSE, or another process holds it
     */
    public static WatermarkStore open(Path path, FlushPolicy policy, OnCorrupt onCorrupt, InstantSource clock)
            throws StateException, IOException {
        Path abs = path.toAbsolutePath().normalize();
        Files.createDirectories(abs.getParent());
        Path lockPath = abs.resolveSibling(abs.getFileName() + ".lock");
        FileChannel ch = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new StateException("watermark file " + abs + " is in use by another log-forwarder process (lock "
                    + lockPath + " is held). Each forwarder process needs its own watch.state.path.");
        }
        try {
            Map<String, Watermark> entries = load(abs, onCorrupt, clock);
            return new WatermarkStore(abs, policy, clock, ch, lock, entries);
        } catch (StateException | IOException | RuntimeException e) {
            lock.release();
            ch.close();
            throw e;
        }
    }

    private static Map<String, Watermark> load(Path path, OnCorrupt onCorrupt, InstantSource clock)
            throws StateException, IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return new LinkedHashMap<>();
        }
        try {
            return new LinkedHashMap<>(WatermarkCodec.decode(content));
        } catch (WatermarkCodec.CorruptException e) {
            if (onCorrupt == OnCorrupt.REFUSE) {
                throw new StateException("watermark file " + path + " is corrupt (" + e.getMessage() + "). "
                        + "The forwarder refuses to start so that it neither skips nor re-sends lines by guesswork. "
                        + "To archive it and start fresh (every watched file is read again from offset 0), restart "
                        + "with --reset-watermarks or set watch.state.reset_on_corrupt: true; or move the file aside "
                        + "yourself.");
            }
            Path backup = path.resolveSibling(path.getFileName() + ".corrupt." + STAMP.format(clock.instant()));
            Files.move(path, backup);
            log.warn(
                    "watermark file {} was corrupt ({}); archived it as {} and started with empty watermarks: "
                            + "every watched file is read from offset 0 and lines may be delivered again",
                    path,
                    e.getMessage(),
                    backup);
            return new LinkedHashMap<>();
        }
    }

    public Path path() {
        return path;
    }

    public Watermark get(String file) {
        return entries.get(file);
    }

    public Map<String, Watermark> entries() {
        return Collections.unmodifiableMap(entries);
    }

    public void put(String file, Watermark watermark) {
        entries.put(file, watermark);
        pendingUpdates++;
    }

    /** Records that {@code updates} more records advanced a watermark (for {@code flush_every}). */
    public void countUpdates(long updates) {
        pendingUpdates += updates;
    }

    public void remove(String file) {
        if (entries.remove(file) != null) {
            pendingUpdates++;
        }
    }

    /**
     * Removes the entry of {@code file} only if it still belongs to the file with that inode: a new file that
     * already took the path keeps its own entry.
     */
    public void removeIfInode(String file, long inode) {
        Watermark w = entries.get(file);
        if (w != null && w.inode() == inode) {
            remove(file);
        }
    }

    /** Writes the file if the flush policy says so; returns whether it wrote. */
    public boolean flushIfDue() throws IOException {
        if (!policy.due(pendingUpdates, lastFlush, clock.instant())) {
            return false;
        }
        flush();
        return true;
    }

    /** Writes the current watermarks to disk atomically (temp file, fsync, rename, fsync directory). */
    public void flush() throws IOException {
        AtomicFile.write(path, WatermarkCodec.encode(entries));
        pendingUpdates = 0;
        lastFlush = clock.instant();
    }

    /** Releases the lock; does not flush (the owner flushes first on a graceful stop). Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
