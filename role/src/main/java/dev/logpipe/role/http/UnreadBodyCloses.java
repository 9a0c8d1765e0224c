package dev.logpipe.role.http;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * client opens a new connection. Checked when the answer commits: the rest of the body is read and dropped, waiting
 * for it up to {@link #MAX_WAIT} and at most {@link #MAX_DROPPED_BYTES} of it (a client that keeps sending must not hold
 * the answering thread); if the body ends within those, the connection stays open. Dropping rather than closing at
 * once also lets the answer reach the client: a server that closes while the client still sends resets the
 * connection, and the client may then lose the answer it had not read yet. A client that waits for {@code 100
 * Continue} is never asked for its body: its connection closes.
 */
final class UnreadBodyCloses extends Handler.Wrapper {
    /** The most of an unread body dropped to keep its connection; past it the connection closes. */
    static final long MAX_DROPPED_BYTES = 1024 * 1024;

    /** The longest the answer waits for the rest of an unread body; past it the connection closes. */
    static final Duration MAX_WAIT = Duration.ofSeconds(1);

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
            if (chunk != null && chunk.isLast() && !Content.Chunk.isFailure(chunk)) {
                ended = true;
            }
            return chunk;
        }

        /**
         * A reader that gives up on the body (an input stream closed before its end fails its source) leaves the rest
         * unread here instead of failing the connection's content, so the answer can drop it.
         */
        @Override
        public void fail(Throwable failure) {
            // the rest of the body is dropped (or the connection closed) when the answer commits
        }

        @Override
        public void fail(Throwable failure, boolean last) {
            // as fail(Throwable)
        }

        /**
         * Reads and drops the rest of the body, waiting for it until {@link #MAX_WAIT} has passed and dropping at most
         * {@link #MAX_DROPPED_BYTES}; whether the body has ended.
         */
        boolean endedAfterDroppingTheRest() {
            long deadline = System.nanoTime() + MAX_WAIT.toNanos();
            long dropped = 0;
            while (!ended && dropped <= MAX_DROPPED_BYTES) {
                Content.Chunk chunk = read();
                if (chunk == null) {
                    if (expectsContinue() || !moreWithin(deadline)) {
                        return false;
                    }
                    continue;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    return false; // the client went away, or the body is malformed
                }
                dropped += chunk.remaining();
                chunk.release();
            }
            return ended;
        }

        /**
         * A client that waits for {@code 100 Continue} before sending its body: asking for the body would send that
         * interim answer and invite the bytes the final answer refuses, so it is never waited for (the connection
         * closes instead).
         */
        private boolean expectsContinue() {
            return getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString());
        }

        /** Waits until more of the body can be read, or the deadline; whether it can. */
        private boolean moreWithin(long deadlineNanos) {
            CountDownLatch more = new CountDownLatch(1);
            demand(more::countDown);
            try {
                return more.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
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
            if (!isCommitted() && !body.endedAfterDroppingTheRest()) {
                getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            }
            super.write(last, content, callback);
        }
    }
}
