package dev.logpipe.role.http;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * An answer given before the request's body was read to its end (a 413 after the first 16 KiB, a 404 or 405 that never
 * looked at the body) says {@code Connection: close} unless the rest of the body is already here to be discarded.
 *
 * <p>Without this, Jetty answers such a request on a connection it then closes without saying so, when the body's
 * bytes arrive after the answer; a client that keeps connections alive (the JDK's {@code HttpClient}, Grafana) sends
 * its next request on that connection and reads "HTTP/1.1 header parser received no bytes". With the header the
 * client opens a new connection. Checked when the answer commits: the answer's first write waits while the rest of
 * the body is dropped as it arrives, up to {@link #MAX_WAIT} and {@link #MAX_DROPPED_BYTES}, with no thread held
 * (a thousand slow clients refused hold none); if the body ends within those, the connection stays open. Dropping rather than closing at
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
         * Drops the rest of the body as it arrives, without holding a thread while it waits: until its end, until
         * {@link #MAX_DROPPED_BYTES} were dropped or until {@link #MAX_WAIT} has passed, then calls {@code then} once
         * with whether the body ended (on the thread that read its last chunk, or the scheduler's).
         */
        void dropTheRestThen(Consumer<Boolean> then) {
            Drain drain = new Drain(then);
            if (expectsContinue()) {
                drain.dropWhatArrived();
                return;
            }
            drain.timeout = getComponents()
                    .getScheduler()
                    .schedule(() -> drain.finish(false), MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            drain.run();
        }

        /**
         * A client that waits for {@code 100 Continue} before sending its body: asking for the body would send that
         * interim answer and invite the bytes the final answer refuses, so it is never waited for (the connection
         * closes instead).
         */
        private boolean expectsContinue() {
            return getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString());
        }

        /** One drop of the rest of the body; finishes once. */
        private final class Drain implements Runnable {
            private final Consumer<Boolean> then;
            private final AtomicBoolean finished = new AtomicBoolean();
            private long dropped;
            private volatile Scheduler.Task timeout;

            Drain(Consumer<Boolean> then) {
                this.then = then;
            }

            /** Reads what arrived; asks to be run again when more arrives. */
            @Override
            public void run() {
                while (!finished.get()) {
                    if (ended || dropped > MAX_DROPPED_BYTES) {
                        finish(ended);
                        return;
                    }
                    Content.Chunk chunk = read();
                    if (chunk == null) {
                        demand(this);
                        return;
                    }
                    if (Content.Chunk.isFailure(chunk)) {
                        finish(false); // the client went away, or the body is malformed
                        return;
                    }
                    dropped += chunk.remaining();
                    chunk.release();
                }
            }

            /** Drops what arrived already, never asking for more; finishes with whether that ended the body. */
            void dropWhatArrived() {
                while (!ended && dropped <= MAX_DROPPED_BYTES) {
                    Content.Chunk chunk = read();
                    if (chunk == null || Content.Chunk.isFailure(chunk)) {
                        break;
                    }
                    dropped += chunk.remaining();
                    chunk.release();
                }
                finish(ended);
            }

            void finish(boolean bodyEnded) {
                if (finished.compareAndSet(false, true)) {
                    Scheduler.Task t = timeout;
                    if (t != null) {
                        t.cancel();
                    }
                    then.accept(bodyEnded);
                }
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

        /** The first write of an answer given before the body ended waits (no thread held) for the rest dropped. */
        @Override
        public void write(boolean last, ByteBuffer content, Callback callback) {
            if (isCommitted() || body.ended) {
                super.write(last, content, callback);
                return;
            }
            body.dropTheRestThen(ended -> {
                if (!ended) {
                    getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
                }
                super.write(last, content, callback);
            });
        }
    }
}
