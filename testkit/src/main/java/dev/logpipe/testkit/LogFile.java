package dev.logpipe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An application's log file as the forwarder sees it: lines appended through one open descriptor, as a
 * logging library does, so that a rename leaves the writer appending to the renamed file until it
 * {@link #reopen}s. Remembers the byte offset at which each line it wrote starts (in the file it went to),
 * so tests can state exact watermarks. Not thread-safe.
 */
public final class LogFile implements AutoCloseable {
    /** One line written: its text (without newline), the file it went into and its start offset there. */
    public record Line(String text, Path file, long startOffset, long endOffset) {}

    private final Path path;
    private FileChannel channel;
    private Path current;
    private final List<Line> written = new ArrayList<>();

    private LogFile(Path path) {
        this.path = path;
        open();
    }

    /** Opens {@code path} for appending, creating it if needed. */
    public static LogFile append(Path path) {
        return new LogFile(path);
    }

    private void open() {
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            channel = FileChannel.open(
                    path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            current = path;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path path() {
        return path;
    }

    /** Appends each text plus a newline, one write per line. */
    public LogFile lines(String... texts) {
        for (String t : texts) {
            long start = size();
            raw(t + "\n");
            written.add(new Line(t, current, start, start + t.getBytes(StandardCharsets.UTF_8).length + 1));
        }
        return this;
    }

    /** Appends bytes as they are (e.g. half a line); not recorded as a line. */
    public LogFile raw(String text) {
        ByteBuffer buf = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        try {
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Size of the file the descriptor writes to (the renamed file after a rename, until {@link #reopen}). */
    public long size() {
        try {
            return channel.size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Renames the file ({@code mv path target}); the descriptor keeps writing into {@code target}. */
    public LogFile renameTo(Path target) {
        try {
            Files.move(path, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        current = target;
        return this;
    }

    /** Closes the descriptor and opens (creating) {@code path} again, as an application does after rotation. */
    public LogFile reopen() {
        closeChannel();
        open();
        return this;
    }

    /**
     * logrotate's copytruncate: copy the content to {@code copy}, then truncate the file in place to zero
     * bytes (same inode). The descriptor is in append mode, so the next line goes to offset 0.
     */
    public LogFile copyTruncate(Path copy) {
        try {
            Files.copy(path, copy, StandardCopyOption.REPLACE_EXISTING);
            channel.truncate(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Every line written so far, in order. */
    public List<Line> written() {
        return List.copyOf(written);
    }

    public long inode() {
        return inode(current);
    }

    /** The OS inode of a file. */
    public static long inode(Path file) {
        return unixAttribute(file, "unix:ino");
    }

    /** The OS device id of a file. */
    public static long device(Path file) {
        return unixAttribute(file, "unix:dev");
    }

    private static long unixAttribute(Path file, String attribute) {
        try {
            return ((Number) Files.getAttribute(file, attribute)).longValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        closeChannel();
    }
}
