package dev.logpipe.forwarder.e2e;

import dev.logpipe.testkit.LogFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    record Written(int number, int generation, long offset) {
    }

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

    RotatingWriter(Path dir, int linesPerFile, long pauseBetweenChunksMillis) {
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
                        write(++n);
                        if (n % linesPerFile == 0) {
                            rotate(n);
                            n += LINES_AFTER_RENAME;
                        }
                    }
                } finally {
                    gate.unlock();
                }
                java.util.concurrent.locks.LockSupport.parkNanos(pauseBetweenChunksNanos); // pacing, not waiting
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            file.close();
        }
    }

    private void write(int n) {
        long offset = file.size();
        file.lines(text(n));
        synchronized (lock) {
            written.add(new Written(n, inodes.size() - 1, offset));
        }
    }

    private void rotate(int n) {
        int generation = inodes.size();
        file.renameTo(dir.resolve("app.log." + generation));
        for (int i = 1; i <= LINES_AFTER_RENAME; i++) {
            write(n + i); // still in the old generation
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
