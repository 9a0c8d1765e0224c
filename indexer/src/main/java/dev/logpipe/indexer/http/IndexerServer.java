package dev.logpipe.indexer.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The indexer's HTTP port: {@code GET /api/v1/status}, {@code /metrics} (Prometheus), {@code /healthz} (the process
 * serves), {@code /readyz} (the loop runs with partitions assigned), and the admin APIs: legal holds and archives.
 */
public final class IndexerServer implements AutoCloseable {
    private final Server server;
    private final ServerConnector connector;

    public IndexerServer(
            InetSocketAddress listen,
            StatusHandler status,
            HoldsHandler holds,
            ArchivesHandler archives,
            PrometheusMeterRegistry registry,
            BooleanSupplier ready) {
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("indexer-http");
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        connector.setIdleTimeout(30_000);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = Request.getPathInContext(request);
                Answer a;
                try {
                    if (path.equals("/healthz")) {
                        a = new Answer(200, "{\"status\":\"up\"}");
                    } else if (path.equals("/readyz")) {
                        boolean ok = ready.getAsBoolean();
                        a = new Answer(ok ? 200 : 503, ok ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
                    } else if (path.equals("/metrics")) {
                        send(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
                        return true;
                    } else if (path.equals("/api/v1/status")) {
                        a = new Answer(200, status.json());
                    } else if (path.equals(HoldsHandler.PATH) || path.startsWith(HoldsHandler.PATH + "/")) {
                        a = holds.handle(
                                request.getMethod(),
                                path,
                                request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                                Request.getRemoteAddr(request),
                                () -> Content.Source.asInputStream(request));
                    } else if (ArchivesHandler.serves(path)) {
                        a = archives.handle(
                                request.getMethod(),
                                path,
                                request.getHttpURI().getQuery(),
                                request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                                Request.getRemoteAddr(request),
                                () -> Content.Source.asInputStream(request));
                    } else {
                        a = new Answer(404, "{\"error\":\"not found\"}");
                    }
                } catch (Exception e) {
                    a = new Answer(500, "{\"error\":\"internal error\"}");
                }
                if (a.retryAfterSeconds() > 0) {
                    response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(a.retryAfterSeconds()));
                }
                send(response, callback, a.status(), "application/json", a.body());
                return true;
            }
        });
    }

    /** An HTTP answer: status, JSON body, and the Retry-After of a 429 in seconds (0: none). */
    public record Answer(int status, String body, long retryAfterSeconds) {
        public Answer(int status, String body) {
            this(status, body, 0);
        }
    }

    private static void send(Response response, Callback callback, int status, String type, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    public void start() throws Exception {
        server.start();
    }

    /** These routes as a Jetty handler, to mount them in another server ({@code logpipe standalone}'s one port). */
    public Handler handler() {
        return server.getHandler();
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
