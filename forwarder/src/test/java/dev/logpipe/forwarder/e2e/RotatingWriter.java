package dev.logpipe.forwarder.e2e;

import dev.logpipe.testkit.LogFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An application writing numbered lines into {@code app.log} on its own thread and rotating it every
 * {@code linesPerFile} lines the way logrotate's {@code create} mode does: rename to {@code app.log.N},
 * a couple more lines through the old descriptor, then a new {@code app.log}. Remembers, for every line,
 * the file generation (and so the inode) it went to and its start offset there. A test can
 * {@link #pause} it between chunks of lines to let the forwarder catch up.
 */
final class RotatingWriter implements AutoCloseable {
    /** Where line {@code number} went: generation (0 = first app.log) and start offset in that file. */
    record Written(int number, int generation, long offset) {}

    private static final int LINES_PER_CHUNK = 10;
    private static final int LINES_AFTER_RENAME = 2;

    private final Path dir;
    private final int linesPerFile;
    private final long pauseBetweenChunksNanos;
    private final ReentrantLock gate = new ReentrantLock();
    private final Object lock = new Object();
    private final List<Written> written = new ArrayList<>();
    private final List<Long> inodes = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Throwable failure;
    private LogFile file;

    /** How lines are written: as they are, or framed like a container runtime's CRI log file. */
    enum Framing {
        PLAIN,
        CRI
    }

    private final Framing framing;

    RotatingWriter(Path dir, int linesPerFile, long pauseBetweenChunksMillis) {
        this(dir, linesPerFile, pauseBetweenChunksMillis, Framing.PLAIN);
    }

    /**
     * With {@link Framing#CRI} every line is {@code <time> stdout F <text>}, except that each line numbered
     * 4k+1 is split into two {@code P} pieces and an {@code F}, with line 4k+2 written on stderr between the
     * pieces (each appended on its own): the forwarder must reassemble the one and hold its watermark before
     * the other's pieces.
     */
    RotatingWriter(Path dir, int linesPerFile, long pauseBetweenChunksMillis, Framing framing) {
        this.framing = framing;
        this.dir = dir;
        this.linesPerFile = linesPerFile;
        this.pauseBetweenChunksNanos = TimeUnit.MILLISECONDS.toNanos(pauseBetweenChunksMillis);
        this.thread = new Thread(this::run, "app-log-writer");
        this.thread.setDaemon(true);
    }

    static String text(int number) {
        return String.format("line-%06d payload payload payload payload payload payload", number);
    }

    /** The line number a record's message carries. */
    static int number(String message) {
        return Integer.parseInt(message.substring(5, 11));
    }

    void start() {
        file = LogFile.append(dir.resolve("app.log"));
        inodes.add(file.inode());
        thread.start();
    }

    private void run() {
        try {
            int n = 0;
            while (!stopping) {
                gate.lock();
                try {
                    for (int i = 0; i < LINES_PER_CHUNK; i++) {
                        n = write(++n);
                        if (n % linesPerFile == 0) {
                            rotate(n);
                            n += LINES_AFTER_RENAME;
                        }
                    }
                } finally {
                    gate.unlock();
                }
                // sleep: pacing: the writer spreads its chunks over the run
                LockSupport.parkNanos(pauseBetweenChunksNanos);
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            file.close();
        }
    }

    /** Writes line {@code n} (with CRI framing, maybe line n+1 too); returns the last number written. */
    private int write(int n) {
        long offset = file.size();
        if (framing == Framing.PLAIN) {
            file.lines(text(n));
        } else if (n % 4 != 1) {
            file.lines(CRI_TIME + " stdout F " + text(n));
        } else {
            String t = text(n);
            file.lines(CRI_TIME + " stdout P " + t.substring(0, 10));
            file.lines(CRI_TIME + " stdout P " + t.substring(10, 30));
            long other = file.size();
            file.lines(CRI_TIME + " stderr F " + text(n + 1));
            file.lines(CRI_TIME + " stdout F " + t.substring(30));
            synchronized (lock) {
                written.add(new Written(n, inodes.size() - 1, offset));
                written.add(new Written(n + 1, inodes.size() - 1, other));
            }
            return n + 1;
        }
        synchronized (lock) {
            written.add(new Written(n, inodes.size() - 1, offset));
        }
        return n;
    }

    private static final String CRI_TIME = "2026-12-01T08:00:00.123456789Z";

    private void rotate(int n) {
        int generation = inodes.size();
        file.renameTo(dir.resolve("app.log." + generation));
        for (int k = n; k < n + LINES_AFTER_RENAME; ) {
            k = write(k + 1); // still in the old generation (with CRI framing, n + 1 starts a split pair)
        }
        file.reopen();
        synchronized (lock) {
            inodes.add(file.inode());
        }
    }

    /** Blocks until the writer is between chunks, and keeps it there until {@link #resume}. */
    void pause() {
        gate.lock();
    }

    void resume() {
        gate.unlock();
    }

    /** Stops writing and waits for the thread; fails if the writer failed. */
    @Override
    public void close() {
        stopping = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new AssertionError("the log writer failed", failure);
        }
    }

    /** Every line written so far, in order. */
    List<Written> written() {
        synchronized (lock) {
            return List.copyOf(written);
        }
    }

    /** Line {@code number} (numbers are 1, 2, 3, ... without gaps), or null if not written yet. */
    Written line(int number) {
        synchronized (lock) {
            return number >= 1 && number <= written.size() ? written.get(number - 1) : null;
        }
    }

    int count() {
        synchronized (lock) {
            return written.size();
        }
    }

    /** Inode of each generation of app.log so far. */
    List<Long> inodes() {
        synchronized (lock) {
            return List.copyOf(inodes);
        }
    }
}
