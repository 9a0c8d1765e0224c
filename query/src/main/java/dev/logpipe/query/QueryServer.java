package dev.logpipe.query;

import dev.logpipe.ui.WebUi;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
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
 * The separate query process's HTTP port: the {@link QueryService} handler (the query API and {@code /api/v1/whoami}),
 * the rules' admin API ({@code /api/v1/admin/rules}, behind {@code admin.api_key_sha256}),
 * the web UI ({@link WebUi}: {@code /}, {@code /ui/...}), {@code /healthz} (the process serves), {@code /readyz} (the
 * shard source is open) and {@code /metrics} (Prometheus). Threads: enough for every live tail
 * and query slot, plus a reserve so health checks are answered whatever the clients do.
 */
final class QueryServer implements AutoCloseable {
    private final Server server;
    private final ServerConnector connector;

    public QueryServer(
            InetSocketAddress listen,
            QueryService service,
            PrometheusMeterRegistry registry,
            BooleanSupplier ready,
            int threads) {
        QueuedThreadPool pool = new QueuedThreadPool(threads, 4);
        pool.setName("query-http");
        server = new Server(pool);
        QueryService.prepare(server);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setRequestHeaderSize(QueryService.MAX_REQUEST_HEAD_BYTES);
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        connector.setIdleTimeout(60_000);
        server.addConnector(connector);
        server.setErrorHandler(new JsonErrorHandler(registry, service::failedOutside));
        Handler api = service.handler();
        AdminRulesPort adminRules = service.adminRulesPort();
        WebUi ui = new WebUi();
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (api.handle(request, response, callback) || adminRules.handle(request, response, callback)) {
                    return true;
                }
                String path = Request.getPathInContext(request);
                switch (path) {
                    case "/healthz" -> send(response, callback, 200, "application/json", "{\"status\":\"up\"}");
                    case "/readyz" -> {
                        boolean ok = ready.getAsBoolean();
                        send(
                                response,
                                callback,
                                ok ? 200 : 503,
                                "application/json",
                                ok ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
                    }
                    case "/metrics" ->
                        send(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
                    default -> {
                        return ui.serve(path, request, response, callback); // else the error handler's JSON 404
                    }
                }
                return true;
            }
        });
    }

    private static void send(Response response, Callback callback, int status, String type, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    public void start() throws Exception {
        server.start();
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
