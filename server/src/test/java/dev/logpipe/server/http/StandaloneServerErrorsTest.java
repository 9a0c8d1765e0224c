package dev.logpipe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.query.JsonErrorHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/** The standalone's one port answers its own errors in JSON too (issue 24 item 2): never Jetty's HTML page. */
class StandaloneServerErrorsTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void notFoundTooLongAndAThrowingHandlerAreJsonAndCounted() throws Exception {
        var limits = new CollectorConfigLoader()
                .parse("kafka:\n  bootstrap_servers: 127.0.0.1:9\ntenants: []\n", "test")
                .limits();
        List<String> heard = new CopyOnWriteArrayList<>();
        Handler collector = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                if (Request.getPathInContext(request).equals("/api/v1/boom")) {
                    throw new OutOfMemoryError("Java heap space");
                }
                return false;
            }
        };
        JsonErrorHandler.Listener listener = (request, status, reason, cause) -> heard.add(status + " " + reason);
        StandaloneServer s = new StandaloneServer(
                new InetSocketAddress("127.0.0.1", 0),
                16,
                limits,
                new StandaloneServer.Routes(collector, null, () -> "{}", null, null, () -> true, () -> "", listener));
        s.start();
        try {
            String base = "http://127.0.0.1:" + s.address().getPort();
            check(get(base + "/api/v1/nope"), 404, "not_found");
            check(get(base + "/api/v1/boom"), 500, "internal");
            check(get(base + "/api/v1/search?q=" + "a".repeat(60_000)), 414, "uri_too_long"); // past the 48 KiB head
            assertThat(heard).contains("404 not_found", "500 internal");
            assertThat(get(base + "/metrics").body())
                    .contains("logpipe_http_errors_total{kind=\"exception\",status=\"500\"} 1.0");
        } finally {
            s.close();
        }
    }

    static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static void check(HttpResponse<String> r, int status, String reason) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(new ObjectMapper().readTree(r.body()).get("reason").asText()).isEqualTo(reason);
        assertThat(r.body()).doesNotContain("<html", "OutOfMemory");
    }
}
