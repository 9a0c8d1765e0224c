package dev.logpipe.index.opensearch;

import dev.logpipe.index.store.read.EngineRequests;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * HTTP to the cluster, on the JDK's client: requests go to the hosts in turn, and a request whose host cannot be
 * reached (connection refused or timed out) goes to the next one, each host at most once per request. A status is an
 * answer, never retried here (the store decides). With {@code ca_file} the hosts' certificates are checked against that
 * CA only. Counts its requests and the time until each answer was read, by endpoint ({@link #requests}).
 * Thread-safe.
 */
final class OpenSearchClient {
    /** A status and its body. */
    record Response(int status, byte[] body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** The endpoints counted apart; anything else is {@code other}. */
    static final List<String> ENDPOINTS =
            List.of("_search", "_msearch", "_mget", "_count", "_bulk", "_refresh", "_cat", "_mapping", "_doc", "other");

    private final List<URI> hosts;
    private final LongAdder[] requests = adders();
    private final LongAdder[] nanos = adders();
    private final String authorization;
    private final Duration timeout;
    private final HttpClient http;
    private final AtomicInteger next = new AtomicInteger();

    OpenSearchClient(OpenSearchSettings settings) throws IOException {
        this.hosts = settings.hosts();
        this.authorization = settings.credential().header().orElse(null);
        this.timeout = settings.requestTimeout();
        HttpClient.Builder b =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1);
        if (settings.caFile().isPresent()) {
            b.sslContext(trusting(settings.caFile().get()));
        }
        this.http = b.build();
    }

    Response send(String method, String path, byte[] body, String contentType) throws IOException {
        return send(method, path, body, contentType, timeout);
    }

    /**
     * As {@link #send(String, String, byte[], String)}, waiting for the answer at most {@code wait} (and never longer
     * than {@code request_timeout}); past it, {@link java.net.http.HttpTimeoutException}.
     */
    Response send(String method, String path, byte[] body, String contentType, Duration wait) throws IOException {
        return send(method, path, body, 0, body == null ? 0 : body.length, contentType, wait);
    }

    /** As {@link #send(String, String, byte[], String)}, with {@code body[offset, offset + length)} as the body. */
    Response send(String method, String path, byte[] body, int offset, int length, String contentType)
            throws IOException {
        return send(method, path, body, offset, length, contentType, timeout);
    }

    private Response send(
            String method, String path, byte[] body, int offset, int length, String contentType, Duration wait)
            throws IOException {
        int endpoint = endpoint(path);
        long started = System.nanoTime();
        try {
            return sendToAHost(
                    method, path, body, offset, length, contentType, wait.compareTo(timeout) < 0 ? wait : timeout);
        } finally {
            requests[endpoint].increment();
            nanos[endpoint].add(System.nanoTime() - started);
        }
    }

    /** The place in {@link #ENDPOINTS} of the path's endpoint: its first part that starts with {@code _}. */
    static int endpoint(String path) {
        int q = path.indexOf('?');
        String p = q < 0 ? path : path.substring(0, q);
        for (String part : p.split("/")) {
            if (part.startsWith("_")) {
                int i = ENDPOINTS.indexOf(part);
                return i < 0 ? ENDPOINTS.size() - 1 : i;
            }
        }
        return ENDPOINTS.size() - 1;
    }

    /**
     * What this client sent, by endpoint (for the query service's metrics): one object for the client's life, since a
     * meter may hold it only weakly.
     */
    EngineRequests requests() {
        return tally;
    }

    private final EngineRequests tally = new EngineRequests() {
        @Override
        public List<String> endpoints() {
            return ENDPOINTS;
        }

        @Override
        public long requests(String endpoint) {
            int i = ENDPOINTS.indexOf(endpoint);
            return i < 0 ? 0 : requests[i].sum();
        }

        @Override
        public long nanos(String endpoint) {
            int i = ENDPOINTS.indexOf(endpoint);
            return i < 0 ? 0 : nanos[i].sum();
        }
    };

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[ENDPOINTS.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    private Response sendToAHost(
            String method, String path, byte[] body, int offset, int length, String contentType, Duration wait)
            throws IOException {
        IOException last = null;
        int first = Math.floorMod(next.getAndIncrement(), hosts.size());
        for (int i = 0; i < hosts.size(); i++) {
            URI host = hosts.get((first + i) % hosts.size());
            HttpRequest.Builder r = HttpRequest.newBuilder(host.resolve(path))
                    .timeout(wait)
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofByteArray(body, offset, length));
            if (body != null) {
                r.header("Content-Type", contentType);
            }
            if (authorization != null) {
                r.header("Authorization", authorization);
            }
            try {
                HttpResponse<byte[]> answer = http.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
                return new Response(answer.statusCode(), answer.body());
            } catch (ConnectException | HttpConnectTimeoutException e) {
                last = new IOException("OpenSearch host " + host + " cannot be reached: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for OpenSearch at " + host, e);
            }
        }
        throw last;
    }

    Response sendJson(String method, String path, byte[] body) throws IOException {
        return send(method, path, body, "application/json");
    }

    private static SSLContext trusting(Path caFile) throws IOException {
        try (InputStream in = Files.newInputStream(caFile)) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int n = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + n++, c);
            }
            if (n == 0) {
                throw new IOException("ca_file " + caFile + " holds no certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (GeneralSecurityException e) {
            throw new IOException("ca_file " + caFile + " cannot be read as X.509 certificates: " + e.getMessage(), e);
        }
    }
}
