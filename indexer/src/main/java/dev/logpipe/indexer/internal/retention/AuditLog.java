package dev.logpipe.indexer.internal.retention;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * The retention audit log (invariant I8): one JSON object per line, appended and fsynced before the call returns,
 * for every shard deletion and every legal-hold change. Thread-safe.
 */
public final class AuditLog implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FileChannel channel;
    private final InstantSource clock;
    private final Path path;

    public AuditLog(Path path, InstantSource clock) throws IOException {
        Files.createDirectories(path.toAbsolutePath().getParent());
        this.channel =
                FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        this.clock = clock;
        this.path = path;
    }

    public Path path() {
        return path;
    }

    /** Appends {"time":..., "action": action, ...fields} and fsyncs it. */
    public synchronized void append(String action, Consumer<ObjectNode> fields) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("time", clock.instant().toString());
        o.put("action", action);
        fields.accept(o);
        ByteBuffer b = ByteBuffer.wrap((o + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            channel.write(b);
        }
        channel.force(false);
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}
