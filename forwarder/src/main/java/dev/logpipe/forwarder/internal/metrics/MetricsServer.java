package dev.logpipe.forwarder.internal.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves {@code /metrics} (Prometheus text format) and {@code /healthz} on {@code metrics.listen}. It
 * runs on its own thread so a scrape works even while the sink is down (invariant I10, docs/architecture.md).
 */
public final class MetricsServer implements Closeable {
    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static MetricsServer start(InetSocketAddress listen, PrometheusMeterRegistry registry) throws IOException {
        // Without TCP_NODELAY the JDK server's separate header and body writes cost ~40 ms per scrape.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(listen, 16);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "log-forwarder-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext(
                "/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/healthz", ex -> respond(ex, 200, "text/plain; charset=utf-8", "ok\n"));
        server.start();
        return new MetricsServer(server, executor);
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
