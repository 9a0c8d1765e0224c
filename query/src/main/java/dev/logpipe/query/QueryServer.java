package dev.logpipe.query;

import dev.logpipe.role.http.JsonErrorHandler;
import dev.logpipe.role.http.Probes;
import dev.logpipe.role.http.RolePort;
import dev.logpipe.ui.WebUi;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The separate query process's HTTP port (a {@link RolePort}): the {@link QueryService} handler (the query API and
 * {@code /api/v1/whoami}), the rules' admin API ({@code /api/v1/admin/rules}, behind {@code admin.api_key_sha256}), the
 * web UI ({@link WebUi}: {@code /}, {@code /ui/...}) and the probes every role answers ({@link Probes}:
 * {@code /healthz}; {@code /readyz}, the shard source is open; {@code /metrics}). Threads: enough for every live tail
 * and query slot, plus a reserve so health checks are answered whatever the clients do.
 */
final class QueryServer implements AutoCloseable {
    private final RolePort port;

    QueryServer(
            InetSocketAddress listen,
            QueryService service,
            PrometheusMeterRegistry registry,
            BooleanSupplier ready,
            int threads) {
        port = new RolePort(
                listen,
                new RolePort.Shape(
                        "query-http", threads, 4, Duration.ofSeconds(60), QueryService.MAX_REQUEST_HEAD_BYTES, true),
                null);
        QueryService.prepare(port.server());
        port.server()
                .setErrorHandler(
                        new JsonErrorHandler(registry, QueryService.REQUEST_HEAD_TOO_LONG, service::failedOutside));
        Handler api = service.handler();
        AdminRulesPort adminRules = service.adminRulesPort();
        WebUi ui = new WebUi();
        port.serve(new Probes(ready, Probes.NOT_READY, registry::scrape, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return api.handle(request, response, callback)
                        || adminRules.handle(request, response, callback)
                        // else the error handler's JSON 404
                        || ui.serve(Request.getPathInContext(request), request, response, callback);
            }
        }));
    }

    public void start() throws Exception {
        port.start();
    }

    public InetSocketAddress address() {
        return port.address();
    }

    @Override
    public void close() throws Exception {
        port.close();
    }
}
