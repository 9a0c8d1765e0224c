package dev.logpipe.query.internal.tail;

import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.query.internal.http.BodyStream;
import java.time.Instant;
import org.eclipse.jetty.server.Response;

/** A tail's Server-Sent Events, written through one {@link BodyStream}. Used by the tail's thread only. */
final class EventWriter implements TailOut {
    private final BodyStream body;

    EventWriter(Response response) {
        this.body = new BodyStream(response);
    }

    /** A record: its id (CR and LF left out, so no id can end the event early) and its source. */
    @Override
    public void record(IdBytes id, String source) throws Exception {
        body.text("event: record\nid: ");
        for (int i = 0; i < id.length(); i++) {
            byte b = id.byteAt(i);
            if (b != '\r' && b != '\n') {
                body.put(b);
            }
        }
        body.text("\ndata: ");
        body.text(source);
        body.text("\n\n");
    }

    /** Text, in UTF-8 (the caller frames it: a comment, an event). */
    void text(String s) throws Exception {
        body.text(s);
    }

    @Override
    public void skipped(long missed, long fromMillis, long toMillis) throws Exception {
        body.text("event: skipped\ndata: {\"skipped\":" + missed + ",\"observed_from\":\""
                + Instant.ofEpochMilli(fromMillis) + "\",\"observed_to\":\"" + Instant.ofEpochMilli(toMillis)
                + "\"}\n\n");
    }

    @Override
    public void keepAlive() throws Exception {
        body.text(": keep-alive\n\n");
        body.flush();
    }

    @Override
    public boolean isEmpty() {
        return body.isEmpty();
    }

    @Override
    public void flush() throws Exception {
        body.flush();
    }
}
