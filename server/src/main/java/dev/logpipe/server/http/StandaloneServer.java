package dev.logpipe.server.http;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.http.CollectorServer;
import dev.logpipe.query.JsonErrorHandler;
import dev.logpipe.query.QueryService;
import dev.logpipe.ui.WebUi;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
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
 * The standalone's one HTTP port: the web UI at {@code /}, the query API, the indexer's status, legal holds and archives,
 * the admin API, {@code /healthz}, {@code /readyz} (broker reachable and indexer consuming), {@code /metrics} (every
 * role's registry), and everything else (ingest: {@code POST /api/v1/logs} and the collector's other routes) to the
 * collector's handler. {@link #close} stops intake first: connections are closed, requests in progress finish.
 */
public final class StandaloneServer implements AutoCloseable {
    /** The indexer's own stage offsets (its {@code /api/v1/status}; that path is the query service's here). */
    public static final String INDEXER_STATUS = "/api/v1/indexer/status";

    /** The roles' handlers and probes this port routes to. {@code query} may be null (not part of this build). */
    public record Routes(
            Handler collector,
            Handler indexer,
            Supplier<String> indexerStatus,
            Handler query,
            AdminHandler admin,
            BooleanSupplier ready,
            Supplier<String> metrics,
            Supplier<String> recordedSeries,
            JsonErrorHandler.Listener errors) {}

    private final Server server;
    private final ServerConnector connector;
    /** This port's own meters: the errors Jetty answers itself. */
    private final PrometheusMeterRegistry errors = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    /**
     * @param limits the collector's limits: their connection caps and idle timeout apply to this port, which serves
     *               ingest as well as the UI and the query API
     */
    public StandaloneServer(InetSocketAddress listen, int threads, CollectorConfig.Limits limits, Routes routes) {
        QueuedThreadPool pool = new QueuedThreadPool(threads, 4);
        pool.setName("standalone-http");
        server = new Server(pool);
        dev.logpipe.query.QueryService.prepare(server);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        // the query API's longest q, percent-encoded, must fit in the request line (docs/query.md)
        http.setRequestHeaderSize(QueryService.MAX_REQUEST_HEAD_BYTES);
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        server.addConnector(connector);
        CollectorServer.limitConnections(server, connector, limits);
        server.setStopTimeout(5_000);
        server.setErrorHandler(new JsonErrorHandler(errors, routes.errors()));
        WebUi ui = new WebUi();
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                String path = Request.getPathInContext(request);
                if (path.equals("/healthz")) {
                    Send.json(response, callback, 200, "{\"status\":\"up\"}");
                } else if (path.equals("/readyz")) {
                    boolean ok = routes.ready().getAsBoolean();
                    Send.json(
                            response,
                            callback,
                            ok ? 200 : 503,
                            ok ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
                } else if (path.equals("/metrics")) {
                    Send.bytes(
                            response,
                            callback,
                            200,
                            "text/plain; version=0.0.4; charset=utf-8",
                            (routes.metrics().get() + errors.scrape()).getBytes(StandardCharsets.UTF_8));
                } else if (path.equals(QueryService.RECORDED_SERIES)) {
                    AdminHandler.Answer refused = routes.admin()
                            .refuseUnlessAdmin(
                                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                                    Request.getRemoteAddr(request));
                    if (refused != null) {
                        send(response, callback, refused);
                    } else {
                        Send.bytes(
                                response,
                                callback,
                                200,
                                "text/plain; version=0.0.4; charset=utf-8",
                                routes.recordedSeries().get().getBytes(StandardCharsets.UTF_8));
                    }
                } else if (path.equals(INDEXER_STATUS)) {
                    Send.json(response, callback, 200, routes.indexerStatus().get());
                } else if (path.startsWith("/api/v1/admin/legal-holds") || path.startsWith("/api/v1/admin/archives")) {
                    return routes.indexer().handle(request, response, callback);
                } else if (path.equals("/api/v1/whoami")) {
                    AdminHandler.Answer a = routes.admin()
                            .whoami(
                                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                                    Request.getRemoteAddr(request));
                    if (a.status() == 401) {
                        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
                    }
                    send(response, callback, a);
                } else if (path.startsWith(AdminHandler.PREFIX)) {
                    AdminHandler.Answer a = routes.admin()
                            .handle(
                                    request.getMethod(),
                                    path,
                                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                                    Request.getRemoteAddr(request),
                                    () -> Content.Source.asInputStream(request));
                    send(response, callback, a);
                } else if (QueryService.isQueryPath(path)) {
                    if (routes.query() == null) {
                        Send.json(
                                response,
                                callback,
                                503,
                                "{\"error\":\"the query service is not part of this " + "build\"}");
                        return true;
                    }
                    return routes.query().handle(request, response, callback);
                } else if (!ui.serve(path, request, response, callback)) {
                    return routes.collector().handle(request, response, callback);
                }
                return true;
            }
        });
    }

    private static void send(Response response, Callback callback, AdminHandler.Answer a) {
        if (a.retryAfterSeconds() > 0) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(a.retryAfterSeconds()));
        }
        Send.json(response, callback, a.status(), a.body());
    }

    public void start() throws Exception {
        server.start();
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    /** Stops accepting, lets requests in progress finish (up to 5 s), stops. */
    @Override
    public void close() throws Exception {
        server.stop();
    }
}
