package dev.logpipe.query.internal.loki;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.tail.Tails;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /loki/api/v1/tail} (docs/loki.md#tail): Loki's live tail, a websocket, as Grafana's Loki data source opens it
 * for Explore's live mode. The request is authenticated, scoped and audited like every other; the LogQL log query is
 * parsed once, its selector's exact part given to the engine and the whole query run over each record as
 * {@code query_range} does; the records come from the native tail ({@link Tails#follow}: the same caps per tenant and
 * service, the same window and the same count of records it could not send in time), from the moment the websocket
 * opens. {@code start}, {@code limit} and {@code delay_for} are checked as Loki checks them; the tail sends nothing
 * from before it opened (search the past with {@code query_range}). Each websocket tail runs on a thread of its own
 * named {@code loki-tail-<n>}, at most {@code limits.max_tails} of them (the tail slots), ended when the client closes,
 * a send times out, or the service stops.
 */
public final class LokiTail {
    private static final Logger log = LoggerFactory.getLogger(LokiTail.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long an upgraded tail waits for its socket to open before it gives its slot back. */
    static final long OPEN_WAIT_MILLIS = 10_000;

    private final Env env;
    private final Tails tails;

    public LokiTail(Env env, Tails tails) {
        this.env = env;
        this.tails = tails;
    }

    /** Lets {@code server} (not started yet) upgrade requests to websockets: the tail needs it. */
    public static void enableOn(Server server) {
        ServerWebSocketContainer.ensure(server);
    }

    /**
     * Upgrades the request to the tail's websocket and returns once it is upgraded (the tail then runs on its own
     * thread); {@code started} is called before. A bad query, a request that is not a websocket upgrade, or no free
     * tail slot is refused (thrown) before anything is taken.
     */
    public void handle(Call call, Request request, Response response, Callback callback, Runnable started)
            throws Exception {
        LogQl.Query parsed = LokiEndpoints.parse(call, "query");
        if (!(parsed instanceof LogQl.LogQuery q)) {
            throw new Refusal(400, "bad_query", "query: a tail follows a log query, not a metric query");
        }
        Params p = call.params();
        p.integer("limit", 100, 1, LokiEndpoints.MAX_LIMIT);
        p.integer("delay_for", 0, 0, 5);
        LokiParams.nanos(p, "start", 0);
        ServerWebSocketContainer container = ServerWebSocketContainer.get(request.getContext());
        if (container == null) {
            throw new Refusal(501, "no_websockets", "this server does not serve websockets");
        }
        Pipeline pipeline = new Pipeline(q);
        ParsedQuery engine = Streams.engineQuery(p.get("query"), q);
        String tenant = call.tenant();
        Tails.Slot slot = tails.admit(tenant);
        boolean upgraded = false;
        boolean handedOver = false;
        try {
            long began = env.clock().millis(); // before the client sees the upgrade: what it writes after comes
            Socket socket = new Socket(tenant, engine, pipeline, slot, began);
            upgraded = container.upgrade(
                    (upgradeRequest, upgradeResponse, upgradeCallback) -> socket, request, response, callback);
            if (upgraded) {
                socket.start(); // owns the slot from here: gives it back when done, or when the socket never opens
                handedOver = true;
            }
        } finally {
            if (!handedOver) {
                slot.close();
            }
        }
        if (!upgraded) {
            throw new Refusal(
                    400,
                    "not_websocket",
                    "/loki/api/v1/tail is a websocket: open it with an Upgrade: websocket request");
        }
        call.audit().put("outcome", "tail_started");
        call.audit().put("status", 101);
        env.metrics().request("loki_tail", 101, 0);
        started.run();
    }

    /**
     * One websocket tail and its thread, started once the upgrade is answered: the thread waits for the socket to
     * open (at most {@link #OPEN_WAIT_MILLIS}), follows the tail, and gives the slot back whatever happens. Public only
     * because Jetty calls its listener methods through method handles.
     */
    public final class Socket implements Session.Listener.AutoDemanding {
        private final String tenant;
        private final ParsedQuery engine;
        private final Pipeline pipeline;
        private final Tails.Slot slot;
        private final long began;
        private final AtomicBoolean gone = new AtomicBoolean();
        private final java.util.concurrent.CompletableFuture<Session> opened =
                new java.util.concurrent.CompletableFuture<>();
        private final AtomicReference<Thread> thread = new AtomicReference<>();

        Socket(String tenant, ParsedQuery engine, Pipeline pipeline, Tails.Slot slot, long began) {
            this.tenant = tenant;
            this.engine = engine;
            this.pipeline = pipeline;
            this.slot = slot;
            this.began = began;
        }

        void start() {
            Thread t = new Thread(this::run, "loki-tail-" + THREADS.incrementAndGet());
            t.setDaemon(true); // ends with the tail; a stopping service ends the tail at its next poll
            thread.set(t);
            t.start();
        }

        @Override
        public void onWebSocketOpen(Session session) {
            opened.complete(session);
        }

        private void run() {
            try {
                Session session;
                try {
                    session = opened.get(OPEN_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                    log.info("loki tail of tenant {} never opened after its upgrade; its slot is given back", tenant);
                    return;
                }
                follow(session);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                slot.close();
            }
        }

        private void follow(Session session) {
            try {
                tails.follow(
                        tenant,
                        ShardKind.RECORDS,
                        engine,
                        new LokiTailOut(session, pipeline, env.config().limits().queryTimeout()),
                        gone,
                        began);
                session.close(
                        StatusCode.SHUTDOWN,
                        "the query service is stopping",
                        org.eclipse.jetty.websocket.api.Callback.NOOP);
            } catch (Exception e) {
                if (!gone.get()) {
                    log.info("loki tail of tenant {} ended: {}", tenant, e.toString());
                    session.close(StatusCode.SERVER_ERROR, "tail ended", org.eclipse.jetty.websocket.api.Callback.NOOP);
                }
            }
        }

        @Override
        public void onWebSocketClose(int status, String reason) {
            stop();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            stop();
        }

        private void stop() {
            gone.set(true);
            opened.completeExceptionally(new IllegalStateException("closed before it opened"));
            Thread t = thread.get();
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }
}
