package dev.logpipe.role.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The paths every role answers the same way, in front of the role's own routes: {@code /healthz} (the process
 * serves: always 200), {@code /readyz} (200 when the role says it is ready, else the role's own 503), {@code /metrics}
 * (the Prometheus text exposition). Any other path goes to the role's handler. Thread-safe when the suppliers are.
 */
public final class Probes extends Handler.Wrapper {
    /** The content type of Prometheus's text exposition format. */
    public static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final Answer UP = Answer.ok("{\"status\":\"up\"}");
    private static final Answer READY = Answer.ok("{\"status\":\"ready\"}");
    /** The usual not-ready answer. */
    public static final Answer NOT_READY = Answer.json(503, "{\"status\":\"not ready\"}");

    private final BooleanSupplier ready;
    private final Answer notReady;
    private final Supplier<String> metrics;

    /**
     * @param ready whether {@code /readyz} answers 200
     * @param notReady its answer otherwise (a 503; {@link #NOT_READY} unless the role says more)
     * @param metrics the scrape of every registry this port exposes
     * @param routes the role's own paths; it declines (returns false) what it does not serve
     */
    public Probes(BooleanSupplier ready, Answer notReady, Supplier<String> metrics, Handler routes) {
        super(routes);
        this.ready = ready;
        this.notReady = notReady;
        this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        switch (Request.getPathInContext(request)) {
            case "/healthz" -> UP.write(response, callback);
            case "/readyz" -> (ready.getAsBoolean() ? READY : notReady).write(response, callback);
            case "/metrics" -> writeMetrics(response, callback, metrics.get());
            default -> {
                return super.handle(request, response, callback);
            }
        }
        return true;
    }

    /** Writes a 200 with a scrape in Prometheus's text format. */
    public static void writeMetrics(Response response, Callback callback, String scrape) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, METRICS_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(scrape.getBytes(StandardCharsets.UTF_8)), callback);
    }
}
