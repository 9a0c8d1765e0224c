package dev.logpipe.query.internal.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

/**
 * A streamed response body, encoded straight into one buffer of {@link #CHUNK} bytes that is written (blocking)
 * whenever it fills and on {@link #flush}: an answer of many parts is never copied whole. Beyond the buffer it holds
 * at most one part's bytes at a time. A write returns once the client's connection took it and throws when the
 * client is gone (or, through the connector's idle timeout, reads too slowly). Used by one thread.
 */
public final class BodyStream {
    public static final int CHUNK = 64 * 1024;
    private final Response response;
    private final ByteBuffer buffer = ByteBuffer.allocate(CHUNK);

    public BodyStream(Response response) {
        this.response = response;
    }

    /** Text, in UTF-8. */
    public void text(String s) throws Exception {
        bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    public void bytes(byte[] b) throws Exception {
        if (b.length > buffer.remaining()) {
            flush();
            if (b.length >= CHUNK) {
                write(ByteBuffer.wrap(b));
                return;
            }
        }
        buffer.put(b);
    }

    public void put(byte b) throws Exception {
        if (!buffer.hasRemaining()) {
            flush();
        }
        buffer.put(b);
    }

    public boolean isEmpty() {
        return buffer.position() == 0;
    }

    /** Writes what is buffered. */
    public void flush() throws Exception {
        if (buffer.position() > 0) {
            buffer.flip();
            write(buffer);
            buffer.clear();
        }
    }

    private void write(ByteBuffer b) throws Exception {
        try (Blocker.Callback cb = Blocker.callback()) {
            response.write(false, b, cb);
            cb.block();
        }
    }
}
