package dev.logpipe.query.internal.tail;

import dev.logpipe.index.store.read.IdBytes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

/**
 * A tail's Server-Sent Events, encoded straight into one buffer of {@link #CHUNK} bytes that is written (blocking)
 * whenever it fills and on {@link #flush}: a poll's answer is never copied whole (a builder, its string, its
 * bytes). Beyond the buffer it holds at most one record's bytes at a time. Used by the tail's thread only.
 */
final class EventWriter implements TailOut {
    static final int CHUNK = 64 * 1024;
    private final Response response;
    private final ByteBuffer buffer = ByteBuffer.allocate(CHUNK);

    EventWriter(Response response) {
        this.response = response;
    }

    /** A record: its id (CR and LF left out, so no id can end the event early) and its source. */
    @Override
    public void record(IdBytes id, String source) throws Exception {
        text("event: record\nid: ");
        for (int i = 0; i < id.length(); i++) {
            byte b = id.byteAt(i);
            if (b != '\r' && b != '\n') {
                put(b);
            }
        }
        text("\ndata: ");
        text(source);
        text("\n\n");
    }

    /** Text, in UTF-8 (the caller frames it: a comment, an event). */
    void text(String s) throws Exception {
        bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void skipped(long missed, long fromMillis, long toMillis) throws Exception {
        text("event: skipped\ndata: {\"skipped\":" + missed + ",\"observed_from\":\"" + Instant.ofEpochMilli(fromMillis)
                + "\",\"observed_to\":\"" + Instant.ofEpochMilli(toMillis) + "\"}\n\n");
    }

    @Override
    public void keepAlive() throws Exception {
        text(": keep-alive\n\n");
        flush();
    }

    @Override
    public boolean isEmpty() {
        return buffer.position() == 0;
    }

    /** Writes what is buffered; returns once the client's connection took it (throws when the client is gone). */
    @Override
    public void flush() throws Exception {
        if (buffer.position() > 0) {
            buffer.flip();
            write(buffer);
            buffer.clear();
        }
    }

    private void bytes(byte[] b) throws Exception {
        if (b.length > buffer.remaining()) {
            flush();
            if (b.length >= CHUNK) {
                write(ByteBuffer.wrap(b));
                return;
            }
        }
        buffer.put(b);
    }

    private void put(byte b) throws Exception {
        if (!buffer.hasRemaining()) {
            flush();
        }
        buffer.put(b);
    }

    private void write(ByteBuffer b) throws Exception {
        try (Blocker.Callback cb = Blocker.callback()) {
            response.write(false, b, cb);
            cb.block();
        }
    }
}
