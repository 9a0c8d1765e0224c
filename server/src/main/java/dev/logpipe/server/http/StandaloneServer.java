package dev.logpipe.server.http;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.http.CollectorServer;
import dev.logpipe.query.QueryService;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import dev.logpipe.role.http.Probes;
import dev.logpipe.role.http.RolePort;
import dev.logpipe.ui.WebUi;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

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

    private final RolePort port;
    /** This port's own meters: the errors Jetty answers itself. */
    private final PrometheusMeterRegistry errors = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    /**
     * @param limits the collector's limits: their connection caps and idle timeout apply to this port, which serves
     *               ingest as well as the UI and the query API
     */
    public StandaloneServer(InetSocketAddress listen, int threads, CollectorConfig.Limits limits, Routes routes) {
        // the query API's longest q, percent-encoded, must fit in the request line (docs/query.md)
        port = new RolePort(
                listen,
                new RolePort.Shape(
                        "standalone-http",
                        threads,
                        4,
                        limits.idleTimeout(),
                        QueryService.MAX_REQUEST_HEAD_BYTES,
                        false),
                null);
        Server server = port.server();
        QueryService.prepare(server);
        CollectorServer.limitConnections(server, port.connector(), limits);
        server.setStopTimeout(5_000);
        server.setErrorHandler(new JsonErrorHandler(errors, QueryService.REQUEST_HEAD_TOO_LONG, routes.errors()));
        WebUi ui = new WebUi();
        port.serve(new Probes(
                routes.ready(),
                Probes.NOT_READY,
                () -> routes.metrics().get() + errors.scrape(),
                new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) throws Exception {
                        return route(routes, ui, request, response, callback);
                    }
                }));
    }

    private static boolean route(Routes routes, WebUi ui, Request request, Response response, Callback callback)
            throws Exception {
        String path = Request.getPathInContext(request);
        if (path.equals(QueryService.RECORDED_SERIES)) {
            Answer refused = routes.admin()
                    .refuseUnlessAdmin(
                            request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                            Request.getRemoteAddr(request));
            if (refused != null) {
                refused.write(response, callback);
            } else {
                Probes.writeMetrics(response, callback, routes.recordedSeries().get());
            }
        } else if (path.equals(INDEXER_STATUS)) {
            Answer.ok(routes.indexerStatus().get()).write(response, callback);
        } else if (path.startsWith("/api/v1/admin/legal-holds") || path.startsWith("/api/v1/admin/archives")) {
            return routes.indexer().handle(request, response, callback);
        } else if (path.equals("/api/v1/whoami")) {
            Answer a = routes.admin()
                    .whoami(
                            request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                            Request.getRemoteAddr(request));
            if (a.status() == 401) {
                a = a.withHeader(HttpHeader.WWW_AUTHENTICATE.asString(), "Bearer");
            }
            a.write(response, callback);
        } else if (path.startsWith(AdminHandler.PREFIX)) {
            routes.admin()
                    .handle(
                            request.getMethod(),
                            path,
                            request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                            Request.getRemoteAddr(request),
                            () -> Content.Source.asInputStream(request))
                    .write(response, callback);
        } else if (QueryService.isQueryPath(path)) {
            if (routes.query() == null) {
                Answer.json(503, "{\"error\":\"the query service is not part of this build\"}")
                        .write(response, callback);
                return true;
            }
            return routes.query().handle(request, response, callback);
        } else if (!ui.serve(path, request, response, callback)) {
            return routes.collector().handle(request, response, callback);
        }
        return true;
    }

    public void start() throws Exception {
        port.start();
    }

    public InetSocketAddress address() {
        return port.address();
    }

    /** Stops accepting, lets requests in progress finish (up to 5 s), stops. */
    @Override
    public void close() throws Exception {
        port.close();
    }
}
