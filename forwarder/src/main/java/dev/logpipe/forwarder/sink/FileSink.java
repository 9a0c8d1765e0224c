package dev.logpipe.forwarder.sink;

import dev.logpipe.forwarder.config.ForwarderConfig.Format;
import dev.logpipe.record.JsonBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends records to a local file, as NDJSON records or raw lines. A batch is acknowledged once it is
 * written to the OS (and fsynced when {@code fsync} is on). A failed write is rolled back to the
 * previous end of the file where possible, so a retry does not leave half a batch behind.
 */
public final class FileSink implements Sink {
    private final Path path;
    private final Format format;
    private final boolean fsync;
    private final FileChannel channel;
    private final JsonBuffer out = new JsonBuffer(1024 * 1024);

    public FileSink(Path path, Format format, boolean fsync) throws IOException {
        this.path = path;
        this.format = format;
        this.fsync = fsync;
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
    }

    @Override
    public void publish(Batch batch) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        out.reset();
        NdjsonEncoder.encodeAll(batch, format, out);
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
    public String describe() {
        return "file " + path + " (" + format.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
