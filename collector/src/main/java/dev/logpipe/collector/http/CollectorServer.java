package dev.logpipe.collector.http;

import dev.logpipe.collector.publish.TopicSetup;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * The collector's HTTP endpoints on one Jetty connector: {@code POST /api/v1/logs}, {@code /healthz} (the process
 * is up), {@code /readyz} (the broker answers), {@code /metrics} (Prometheus). The idle timeout bounds how long a
 * client may take between bytes (slow clients are cut off).
 */
public final class CollectorServer implements AutoCloseable {
    private final Server server;
    private final ServerConnector connector;

    private final long maxDrainBytes;

    public CollectorServer(InetSocketAddress listen, dev.logpipe.collector.config.CollectorConfig.Tls tls,
                           Duration idleTimeout, long maxDrainBytes, IngestHandler ingest, TopicSetup topics,
                           PrometheusMeterRegistry registry) {
        this.maxDrainBytes = maxDrainBytes;
        QueuedThreadPool pool = new QueuedThreadPool(64, 4);
        pool.setName("collector-http");
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        if (tls == null) {
            connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        } else {
            org.eclipse.jetty.util.ssl.SslContextFactory.Server ssl = new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
            ssl.setKeyStorePath(tls.keystore().toString());
            ssl.setKeyStorePassword(tls.keystorePassword());
            ssl.setKeyStoreType("PKCS12");
            if (tls.truststore() != null) {
                ssl.setTrustStorePath(tls.truststore().toString());
                ssl.setTrustStorePassword(tls.truststorePassword());
                ssl.setTrustStoreType("PKCS12");
            }
            ssl.setNeedClientAuth(tls.clientAuth() == dev.logpipe.collector.config.CollectorConfig.ClientAuth.NEED);
            ssl.setWantClientAuth(tls.clientAuth() == dev.logpipe.collector.config.CollectorConfig.ClientAuth.WANT);
            HttpConfiguration https = new HttpConfiguration(http);
            // Clients reach collectors by IP or load-balancer names: no SNI host check.
            https.addCustomizer(new org.eclipse.jetty.server.SecureRequestCustomizer(false));
            connector = new ServerConnector(server, 1, 1,
                    new org.eclipse.jetty.server.SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(https));
        }
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        connector.setIdleTimeout(idleTimeout.toMillis());
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() { // blocking: reads bodies and waits for Kafka
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                route(request, response, callback, ingest, topics, registry, maxDrainBytes);
                return true;
            }
        });
    }

    private static void route(Request request, Response response, Callback callback, IngestHandler ingest,
                              TopicSetup topics, PrometheusMeterRegistry registry, long maxDrainBytes) {
        String path = Request.getPathInContext(request);
        switch (path) {
            case "/healthz" -> send(response, callback, 200, "application/json", "{\"status\":\"up\"}", 0);
            case "/readyz" -> {
                boolean ok = topics.brokerReachable();
                send(response, callback, ok ? 200 : 503, "application/json",
                        ok ? "{\"status\":\"ready\"}" : "{\"status\":\"broker unreachable\"}", ok ? 0 : 1);
            }
            case "/metrics" -> send(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8",
                    registry.scrape(), 0);
            case "/api/v1/logs" -> {
                if (!"POST".equals(request.getMethod())) {
                    response.getHeaders().put(HttpHeader.ALLOW, "POST");
                    send(response, callback, 405, "application/json", "{\"error\":\"use POST\"}", 0);
                    return;
                }
                IngestHandler.Answer a = ingest.handle(request.getHeaders().get(HttpHeader.AUTHORIZATION),
                        clientSubject(request),
                        request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH),
                        request.getHeaders().get(HttpHeader.CONTENT_ENCODING),
                        () -> Content.Source.asInputStream(request));
                if (a.status() == 401) {
                    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
                }
                // An unauthenticated client gets no reading of its body (it could hold a thread with a slow one).
                if (a.status() == 401 || a.status() != 200 && !drained(request, maxDrainBytes)) {
                    // The unread rest is too large to discard: close instead, and say so.
                    response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
                send(response, callback, a.status(), "application/json", a.body(), a.retryAfterSeconds());
            }
            default -> send(response, callback, 404, "application/json", "{\"error\":\"not found\"}", 0);
        }
    }

    /** The canonical subject of the verified client certificate, or null without TLS or without a certificate. */
    private static String clientSubject(Request request) {
        Object data = request.getAttribute(org.eclipse.jetty.io.EndPoint.SslSessionData.ATTRIBUTE);
        if (data instanceof org.eclipse.jetty.io.EndPoint.SslSessionData ssl && ssl.peerCertificates() != null
                && ssl.peerCertificates().length > 0) {
            return ssl.peerCertificates()[0].getSubjectX500Principal().getName(
                    javax.security.auth.x500.X500Principal.CANONICAL);
        }
        return null;
    }

    /**
     * Reads and discards what a refused request still has of its body, up to {@code max} bytes, so the client
     * reads the answer instead of a reset and the connection stays usable. Memory: one small buffer.
     */
    private static boolean drained(Request request, long max) {
        long len = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
        if (len > max) {
            return false;
        }
        try (java.io.InputStream in = Content.Source.asInputStream(request)) {
            byte[] buf = new byte[16 * 1024];
            long total = 0;
            for (int n; (n = in.read(buf)) > 0; ) {
                total += n;
                if (total > max) {
                    return false;
                }
            }
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    private static void send(Response response, Callback callback, int status, String type, String body,
                             long retryAfter) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        if (retryAfter > 0) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfter));
        }
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    public void start() throws Exception {
        server.start();
    }

    /** The bound address (useful with port 0). */
    public InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost() == null ? "0.0.0.0" : connector.getHost(),
                connector.getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
