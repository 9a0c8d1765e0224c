package dev.logpipe.role.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A role's port: the probes every role answers, the role's own routes, and JSON whatever fails. */
class RolePortTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RolePort.Shape SHAPE =
            new RolePort.Shape("test-http", 8, 2, Duration.ofSeconds(5), 2048, false);
    private final HttpClient client = HttpClient.newHttpClient();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final AtomicBoolean ready = new AtomicBoolean();
    private RolePort port;

    @AfterEach
    void stop() throws Exception {
        if (port != null) {
            port.close();
        }
    }

    private void start(Handler routes) throws Exception {
        port = new RolePort(new InetSocketAddress("127.0.0.1", 0), SHAPE, null);
        port.server()
                .setErrorHandler(new JsonErrorHandler(
                        registry,
                        "keep it under 2 KiB",
                        (request, status, reason, cause) -> heard.add(status + " " + reason + " " + (cause != null))));
        port.serve(new Probes(
                ready::get,
                Answer.json(503, "{\"status\":\"broker unreachable\"}").retryAfter(1),
                () -> "# the scrape\n",
                routes));
        port.start();
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port.address().getPort() + path));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        return JSON.readTree(r.body());
    }

    private static final Handler ECHO = new Handler.Abstract() {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            if (!path.startsWith("/api/")) {
                return false;
            }
            Answer.ok("{\"path\":\"" + path + "\"}")
                    .withHeader("X-Role", "test")
                    .write(response, callback);
            return true;
        }
    };

    @Test
    void probesAnswerBeforeTheRolesRoutesAndReadinessFollowsTheRole() throws Exception {
        start(ECHO);
        assertThat(json(get("/healthz")).get("status").asText()).isEqualTo("up");

        HttpResponse<String> notReady = get("/readyz");
        assertThat(notReady.statusCode()).isEqualTo(503);
        assertThat(json(notReady).get("status").asText()).isEqualTo("broker unreachable");
        assertThat(notReady.headers().firstValue("Retry-After")).hasValue("1");
        ready.set(true);
        HttpResponse<String> nowReady = get("/readyz");
        assertThat(nowReady.statusCode()).isEqualTo(200);
        assertThat(json(nowReady).get("status").asText()).isEqualTo("ready");

        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue(Probes.METRICS_TYPE);
        assertThat(metrics.body()).isEqualTo("# the scrape\n");

        HttpResponse<String> routed = get("/api/v1/thing");
        assertThat(json(routed).get("path").asText()).isEqualTo("/api/v1/thing");
        assertThat(routed.headers().firstValue("X-Role")).hasValue("test");
    }

    @Test
    void whatTheRoleDeclinesOrRefusesIsAJsonErrorCountedAndHeard() throws Exception {
        start(ECHO);
        HttpResponse<String> missing = get("/no/such/path");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json(missing).get("reason").asText()).isEqualTo("not_found");

        HttpResponse<String> deleted = client.send(
                HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port.address().getPort() + "/no/such/thing"))
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).isEqualTo(404);
        assertThat(json(deleted).get("reason").asText()).isEqualTo("not_found");

        HttpResponse<String> longHead = get("/api/v1/thing", "X-Big", "b".repeat(4096));
        assertThat(longHead.statusCode()).isEqualTo(431);
        JsonNode body = json(longHead);
        assertThat(body.get("reason").asText()).isEqualTo("headers_too_large");
        assertThat(body.get("error").asText()).isEqualTo("keep it under 2 KiB");
        assertThat(heard).contains("404 not_found false", "431 headers_too_large false");
        assertThat(heard.stream().filter(h -> h.startsWith("404"))).hasSize(2);
        assertThat(registry.get("logpipe_http_errors")
                        .tags("status", "404", "kind", "not_found")
                        .counter()
                        .count())
                .isEqualTo(2.0);
    }

    @Test
    void aHandlerThatThrowsAnErrorGetsAJson500ThatDoesNotNameIt() throws Exception {
        start(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                throw new OutOfMemoryError("Java heap space");
            }
        });
        HttpResponse<String> r = get("/api/v1/search");
        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(json(r).get("reason").asText()).isEqualTo("internal");
        assertThat(r.body()).doesNotContain("OutOfMemory", "heap");
        assertThat(heard).containsExactly("500 internal true");
        assertThat(registry.get("logpipe_http_errors")
                        .tags("status", "500", "kind", "exception")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void aBodyRefusedBeforeItsEndIsDroppedSoItsAnswerArrivesAndTheConnectionServesTheNextRequest() throws Exception {
        start(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (Request.getPathInContext(request).equals("/api/small")) {
                    Answer.ok("{}").write(response, callback);
                    return true;
                }
                try (InputStream in = Content.Source.asInputStream(request)) {
                    if (in.readNBytes(1025).length <= 1024) {
                        Answer.ok("{}").write(response, callback);
                        return true;
                    }
                }
                Answer.error(413, "too_large", "at most 1024 bytes").write(response, callback);
                return true;
            }
        });
        URI big = URI.create("http://127.0.0.1:" + port.address().getPort() + "/api/big");
        for (int round = 0; round < 5; round++) {
            HttpResponse<String> refused = client.send(
                    HttpRequest.newBuilder(big)
                            .POST(HttpRequest.BodyPublishers.ofString("x".repeat(300_000)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(413);
            assertThat(refused.headers().firstValue("Connection")).isEmpty(); // the rest of its body was dropped
            HttpResponse<String> next = client.send(
                    HttpRequest.newBuilder(big)
                            .POST(HttpRequest.BodyPublishers.ofString("{}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(next.statusCode()).as("round " + round).isEqualTo(200);
            assertThat(next.headers().firstValue("Connection")).isEmpty();
        }
    }

    private static final Handler REFUSES_UNREAD = new Handler.Abstract() {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Answer.error(405, "method_not_allowed", "only GET").write(response, callback);
            return true;
        }
    };

    /** Sends raw bytes on one connection and reads one answer's head. */
    private static String answerHead(Socket socket, String request) throws Exception {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
        StringBuilder head = new StringBuilder();
        int length = 0;
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            head.append(line.toLowerCase(Locale.ROOT)).append('\n');
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        char[] body = new char[length];
        for (int got = 0; got < length; ) {
            got += in.read(body, got, length - got);
        }
        return head.toString();
    }

    @Test
    void anAnswerBeforeTheBodyArrivesSaysTheConnectionCloses() throws Exception {
        start(REFUSES_UNREAD);
        try (Socket socket = new Socket("127.0.0.1", port.address().getPort())) {
            String head = answerHead(socket, "POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n");
            assertThat(head).startsWith("http/1.1 405").contains("connection: close");
        }
    }

    @Test
    void aClientWaitingFor100ContinueGetsTheAnswerWithoutBeingAskedForItsBody() throws Exception {
        start(REFUSES_UNREAD);
        try (Socket socket = new Socket("127.0.0.1", port.address().getPort())) {
            socket.setSoTimeout(10_000);
            String head = answerHead(
                    socket, "POST /api/x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n");
            assertThat(head).startsWith("http/1.1 405").contains("connection: close");
        }
    }

    @Test
    void anAnswerWhoseUnreadBodyIsAlreadyHereKeepsTheConnection() throws Exception {
        start(REFUSES_UNREAD);
        try (Socket socket = new Socket("127.0.0.1", port.address().getPort())) {
            String request = "POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
            assertThat(answerHead(socket, request)).startsWith("http/1.1 405").doesNotContain("connection:");
            assertThat(answerHead(socket, request)).startsWith("http/1.1 405").doesNotContain("connection:");
        }
    }

    @Test
    void anUnreadBodyThatArrivesAfterTheAnswerBeganIsDroppedAndTheConnectionKept() throws Exception {
        java.util.concurrent.CountDownLatch answerBegun = new java.util.concurrent.CountDownLatch(1);
        start(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                boolean handled = REFUSES_UNREAD.handle(request, response, callback);
                answerBegun.countDown(); // the answer's first write was made before any of the body arrived
                return handled;
            }
        });
        try (Socket socket = new Socket("127.0.0.1", port.address().getPort())) {
            socket.setSoTimeout(10_000);
            String request = "POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            assertThat(answerBegun.await(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            socket.getOutputStream().write("{}".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            assertThat(answerHead(socket, "")).startsWith("http/1.1 405").doesNotContain("connection:");
            String again = "POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
            assertThat(answerHead(socket, again)).startsWith("http/1.1 405").doesNotContain("connection:");
        }
    }

    @Test
    void aClientThatKeepsSendingAnUnreadBodyGetsItsAnswerAndTheConnectionCloses() throws Exception {
        start(REFUSES_UNREAD);
        try (Socket socket = new Socket("127.0.0.1", port.address().getPort())) {
            int length = 16 << 20;
            Thread sender = new Thread(() -> {
                try {
                    java.io.OutputStream out = socket.getOutputStream();
                    out.write(("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: " + length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = new byte[64 * 1024];
                    for (int sent = 0; sent < length; sent += chunk.length) {
                        out.write(chunk);
                    }
                } catch (java.io.IOException closedByTheServer) {
                    // expected once the answer closed the connection
                }
            });
            sender.start();
            socket.setSoTimeout(10_000);
            String head = answerHead(socket, "");
            assertThat(head).startsWith("http/1.1 405").contains("connection: close");
            sender.interrupt();
        }
    }
}
