package dev.logpipe.indexer.http;

import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import dev.logpipe.role.http.Probes;
import dev.logpipe.role.http.RolePort;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The indexer's HTTP port (a {@link RolePort}): {@code GET /api/v1/status}, the admin APIs (legal holds and archives),
 * and the probes every role answers ({@link Probes}: {@code /healthz}; {@code /readyz}, the loop runs with partitions
 * assigned; {@code /metrics}). Errors are JSON ({@link JsonErrorHandler}).
 */
public final class IndexerServer implements AutoCloseable {
    private static final RolePort.Shape SHAPE = new RolePort.Shape(
            "indexer-http", 16, 2, Duration.ofSeconds(30), RolePort.Shape.DEFAULT_REQUEST_HEAD_BYTES, true);
    private final RolePort port;

    public IndexerServer(
            InetSocketAddress listen,
            StatusHandler status,
            HoldsHandler holds,
            ArchivesHandler archives,
            PrometheusMeterRegistry registry,
            BooleanSupplier ready) {
        port = new RolePort(listen, SHAPE, null);
        // the errors' own registry: the standalone scrapes the indexer's registry beside its port's errors
        PrometheusMeterRegistry errors = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        port.server().setErrorHandler(new JsonErrorHandler(errors, null, JsonErrorHandler.Listener.NONE));
        port.serve(new Probes(
                ready, Probes.NOT_READY, () -> registry.scrape() + errors.scrape(), new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) throws Exception {
                        Answer a = route(request, status, holds, archives);
                        if (a == null) {
                            return false; // the error handler's JSON 404
                        }
                        a.write(response, callback);
                        return true;
                    }
                }));
    }

    private static Answer route(Request request, StatusHandler status, HoldsHandler holds, ArchivesHandler archives)
            throws Exception {
        String path = Request.getPathInContext(request);
        if (path.equals("/api/v1/status")) {
            return Answer.ok(status.json());
        } else if (path.equals(HoldsHandler.PATH) || path.startsWith(HoldsHandler.PATH + "/")) {
            return holds.handle(
                    request.getMethod(),
                    path,
                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                    Request.getRemoteAddr(request),
                    () -> Content.Source.asInputStream(request));
        } else if (ArchivesHandler.serves(path)) {
            return archives.handle(
                    request.getMethod(),
                    path,
                    request.getHttpURI().getQuery(),
                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                    Request.getRemoteAddr(request),
                    () -> Content.Source.asInputStream(request));
        }
        return null;
    }

    public void start() throws Exception {
        port.start();
    }

    /** These routes as a Jetty handler, to mount them in another server ({@code logpipe standalone}'s one port). */
    public Handler handler() {
        return port.handler();
    }

    public InetSocketAddress address() {
        return port.address();
    }

    @Override
    public void close() throws Exception {
        port.close();
    }
}
