package dev.logpipe.collector.http;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.internal.compat.CompatRoutes;
import dev.logpipe.collector.internal.ingest.IngestHandler;
import dev.logpipe.collector.internal.ingest.IngestRequest;
import dev.logpipe.collector.internal.ingest.NativeProtocol;
import dev.logpipe.collector.internal.publish.TopicSetup;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import dev.logpipe.role.http.Probes;
import dev.logpipe.role.http.RolePort;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import javax.security.auth.x500.X500Principal;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The collector's HTTP endpoints on one Jetty connector: {@code POST /api/v1/logs}, {@code /healthz} (the process
 * is up), {@code /readyz} (the broker answers), {@code /metrics} (Prometheus). The idle timeout bounds how long a
 * client may send nothing; connections are capped in all and per client address; the thread pool is larger than
 * the cap on ingest requests in progress, so health checks are answered whatever ingest clients do.
 */
public final class CollectorServer implements AutoCloseable {
    private final RolePort port;

    /** Threads beyond {@code limits.max_concurrent_requests}: acceptor, selector, health checks, refusals. */
    static final int RESERVED_THREADS = 32;

    private final ConnectionsPerAddress perAddress;

    public CollectorServer(
            InetSocketAddress listen,
            CollectorConfig.Tls tls,
            CollectorConfig.Limits limits,
            IngestHandler ingest,
            TopicSetup topics,
            PrometheusMeterRegistry registry) {
        // Above the cap on requests in progress: the rest serve health checks, metrics and refusals at once.
        port = new RolePort(
                listen,
                new RolePort.Shape(
                        "collector-http",
                        limits.maxConcurrentRequests() + RESERVED_THREADS,
                        4,
                        limits.idleTimeout(),
                        RolePort.Shape.DEFAULT_REQUEST_HEAD_BYTES,
                        false),
                tls == null ? null : sslContext(tls));
        perAddress = new ConnectionsPerAddress(limits.maxConnectionsPerAddress());
        port.connector().addBean(perAddress);
        port.server().addBean(new NetworkConnectionLimit(limits.maxConnections(), port.connector()));
        // the errors' own registry: the standalone scrapes the collector's registry beside its port's errors
        PrometheusMeterRegistry errors = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        port.server().setErrorHandler(new JsonErrorHandler(errors, null, JsonErrorHandler.Listener.NONE));
        port.serve(new Probes(
                topics::brokerReachable,
                Answer.json(503, "{\"status\":\"broker unreachable\"}").retryAfter(1),
                () -> registry.scrape() + errors.scrape(),
                new Handler.Abstract() { // blocking: reads bodies and waits for Kafka
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) {
                        return route(request, response, callback, ingest, limits.maxDecodedBytes());
                    }
                }));
    }

    private static SslContextFactory.Server sslContext(CollectorConfig.Tls tls) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(tls.keystore().toString());
        ssl.setKeyStorePassword(tls.keystorePassword());
        ssl.setKeyStoreType("PKCS12");
        if (tls.truststore() != null) {
            ssl.setTrustStorePath(tls.truststore().toString());
            ssl.setTrustStorePassword(tls.truststorePassword());
            ssl.setTrustStoreType("PKCS12");
        }
        ssl.setNeedClientAuth(tls.clientAuth() == CollectorConfig.ClientAuth.NEED);
        ssl.setWantClientAuth(tls.clientAuth() == CollectorConfig.ClientAuth.WANT);
        return ssl;
    }

    /** Answers an ingest path; false for any other (the error handler's JSON 404). */
    private static boolean route(
            Request request, Response response, Callback callback, IngestHandler ingest, long maxDecodedBytes) {
        String path = Request.getPathInContext(request);
        if (path.equals("/api/v1/logs")) {
            if (!"POST".equals(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ALLOW, "POST");
                Answer.error(405, "method_not_allowed", "use POST").write(response, callback);
                return true;
            }
            NativeProtocol protocol =
                    NativeProtocol.forContentType(request.getHeaders().get(HttpHeader.CONTENT_TYPE));
            send(response, callback, ingest.handle(ingestRequest(request), protocol));
            return true;
        }
        CompatRoutes.Route compat = CompatRoutes.route(
                request.getMethod(), path, name -> request.getHeaders().get(name), maxDecodedBytes);
        if (compat == null) {
            return false;
        }
        if (compat.elasticsearch()) {
            // Elasticsearch clients (the Java client, Logstash) check that they talk to "Elasticsearch".
            response.getHeaders().put("X-Elastic-Product", "Elasticsearch");
        }
        send(response, callback, CompatRoutes.serve(compat, ingest, ingestRequest(request)));
        return true;
    }

    /** The parts of an HTTP request the ingest pipeline needs. */
    private static IngestRequest ingestRequest(Request request) {
        return new IngestRequest(
                request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                clientSubject(request),
                Request.getRemoteAddr(request),
                request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH),
                request.getHeaders().get(HttpHeader.CONTENT_ENCODING),
                () -> Content.Source.asInputStream(request),
                request.getHeaders().contains(HttpHeader.EXPECT, "100-continue"));
    }

    /** The canonical subject of the verified client certificate, or null without TLS or without a certificate. */
    private static String clientSubject(Request request) {
        Object data = request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE);
        if (data instanceof EndPoint.SslSessionData ssl
                && ssl.peerCertificates() != null
                && ssl.peerCertificates().length > 0) {
            return ssl.peerCertificates()[0].getSubjectX500Principal().getName(X500Principal.CANONICAL);
        }
        return null;
    }

    /** Sends an ingest answer: a 401 names the schemes, and a connection whose body was not read is closed. */
    public static void send(Response response, Callback callback, IngestHandler.Answer a) {
        if (a.status() == 401) {
            response.getHeaders().add(HttpHeader.WWW_AUTHENTICATE, "Bearer");
            response.getHeaders().add(HttpHeader.WWW_AUTHENTICATE, "Basic realm=\"logpipe\"");
        }
        if (a.close()) {
            // The body was not read to its end (or the client is not to be read from): close after answering.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        response.setStatus(a.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, a.contentType());
        if (a.retryAfterSeconds() > 0) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(a.retryAfterSeconds()));
        }
        a.headers().forEach((name, value) -> response.getHeaders().put(name, value));
        response.write(true, ByteBuffer.wrap(a.body()), callback);
    }

    public void start() throws Exception {
        port.start();
    }

    /**
     * The collector's routes as a Jetty handler, for mounting them in another server without starting this one
     * ({@code logpipe standalone} serves every role on one port). Blocking, like on the collector's own port.
     */
    public Handler handler() {
        return port.handler();
    }

    /**
     * Puts the collector's connection limits (idle timeout, connections per client address and in all) on a
     * connector of another server that mounts the collector's routes ({@code logpipe standalone}'s one port).
     */
    public static void limitConnections(Server server, ServerConnector connector, CollectorConfig.Limits limits) {
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        connector.addBean(new ConnectionsPerAddress(limits.maxConnectionsPerAddress()));
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    }

    /** The bound address (useful with port 0). */
    public InetSocketAddress address() {
        return port.address();
    }

    @Override
    public void close() throws Exception {
        port.close();
    }
}
