package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.record.JsonBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends records to a local file, as NDJSON records or raw lines. A batch is acknowledged once it is
 * written to the OS (and fsynced when {@code fsync} is on). A failed write is rolled back to the
 * previous end of the file where possible, so a retry does not leave half a batch behind. A crash (kill -9)
 * in the middle of a write can still leave a torn last line; it was never acknowledged, so opening the sink
 * cuts it off rather than letting the next record be glued onto it.
 */
public final class FileSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(FileSink.class);

    private final Path path;
    private final Format format;
    private final boolean fsync;
    private final FileChannel channel;

    public FileSink(Path path, Format format, boolean fsync) throws IOException {
        this.path = path;
        this.format = format;
        this.fsync = fsync;
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        cutTornTail(path);
        this.channel =
                FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /** Truncates a regular file to just past its last newline, if bytes follow it. */
    private static void cutTornTail(Path path) throws IOException {
        if (!Files.isRegularFile(path)) {
            return;
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            long keep = 0;
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            search:
            for (long end = size; end > 0; ) {
                long start = Math.max(0, end - buf.capacity());
                buf.clear().limit((int) (end - start));
                while (buf.hasRemaining() && ch.read(buf, start + buf.position()) > 0) {
                    // fill the block
                }
                for (int i = buf.position() - 1; i >= 0; i--) {
                    if (buf.get(i) == '\n') {
                        keep = start + i + 1;
                        break search;
                    }
                }
                end = start;
            }
            if (keep < size) {
                ch.truncate(keep);
                ch.force(false);
                log.warn(
                        "file sink {} ended in an incomplete record ({} bytes after the last newline, left by a "
                                + "crash in the middle of a write); cut them off. That record was never acknowledged and is "
                                + "read again from its source file",
                        path,
                        size - keep);
            }
        }
    }

    @Override
    public void publish(Batch batch) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        JsonBuffer out = batch.wire();
        long before = channel.size();
        try {
            ByteBuffer buf = ByteBuffer.wrap(out.array(), 0, out.size());
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            if (fsync) {
                channel.force(false);
            }
        } catch (IOException e) {
            try {
                channel.truncate(before);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @Override
    public Format format() {
        return format;
    }

    @Override
    public String describe() {
        return "file " + path + " (" + format.name().toLowerCase(Locale.ROOT) + ")";
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
