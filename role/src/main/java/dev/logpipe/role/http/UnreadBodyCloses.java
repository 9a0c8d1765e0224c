package dev.logpipe.role.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * An answer given before the request's body was read to its end (a 413 after the first 16 KiB, a 404 or 405 that never
 * looked at the body) says {@code Connection: close} unless the rest of the body is already here to be discarded.
 *
 * <p>Without this, Jetty answers such a request on a connection it then closes without saying so, when the body's
 * bytes arrive after the answer; a client that keeps connections alive (the JDK's {@code HttpClient}, Grafana) sends
 * its next request on that connection and reads "HTTP/1.1 header parser received no bytes". With the header the
 * client opens a new connection. Checked when the answer commits: the body's bytes already received (64 KiB at most)
 * are read and dropped without waiting; if they end the body, the connection stays open.
 */
final class UnreadBodyCloses extends Handler.Wrapper {
    /** The most of an unread body dropped to keep its connection; past it the connection closes. */
    static final long MAX_DROPPED_BYTES = 64 * 1024;

    UnreadBodyCloses(Handler routes) {
        super(routes);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!carriesBody(request)) {
            return super.handle(request, response, callback);
        }
        BodyWatch body = new BodyWatch(request);
        return super.handle(body, new CloseIfUnread(body, response), callback);
    }

    private static boolean carriesBody(Request request) {
        return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    /** The request, noting whether its handler read the body to its last chunk. */
    private static final class BodyWatch extends Request.Wrapper {
        private volatile boolean ended;

        BodyWatch(Request request) {
            super(request);
        }

        @Override
        public Content.Chunk read() {
            Content.Chunk chunk = super.read();
            if (chunk != null && chunk.isLast()) {
                ended = true;
            }
            return chunk;
        }

        /**
         * Reads and drops the body's bytes already received, at most {@link #MAX_DROPPED_BYTES} (a client that keeps
         * sending must not hold the thread that answers it); whether the body has ended.
         */
        boolean endedAfterDroppingWhatArrived() {
            long dropped = 0;
            while (!ended && dropped <= MAX_DROPPED_BYTES) {
                Content.Chunk chunk = read();
                if (chunk == null) {
                    return false;
                }
                dropped += chunk.remaining();
                chunk.release();
            }
            return ended;
        }
    }

    /** The response, adding {@code Connection: close} when it commits before the request's body has ended. */
    private static final class CloseIfUnread extends Response.Wrapper {
        private final BodyWatch body;

        CloseIfUnread(BodyWatch body, Response response) {
            super(body, response);
            this.body = body;
        }

        @Override
        public void write(boolean last, ByteBuffer content, Callback callback) {
            if (!isCommitted() && !body.endedAfterDroppingWhatArrived()) {
                getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            super.write(last, content, callback);
        }
    }
}
