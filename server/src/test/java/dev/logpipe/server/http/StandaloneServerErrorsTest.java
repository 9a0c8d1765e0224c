package dev.logpipe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.query.QueryService;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.role.http.JsonErrorHandler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
                new StandaloneServer.Routes(
                        collector, null, () -> "{}", null, null, () -> true, () -> "", () -> "", listener));
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

    /**
     * Review of issue 24, finding 9: an exception of the collector's, or a request too malformed to parse, on the
     * standalone's port was counted as a query request ({@code endpoint="unknown"}, {@code reason="internal"}) and
     * the malformed one audited as a query request. Only the query paths are the query service's.
     */
    @Test
    void anotherRolesErrorsAndMalformedRequestsAreNotQueryRequests(@TempDir Path dir) throws Exception {
        var limits = new CollectorConfigLoader()
                .parse("kafka:\n  bootstrap_servers: 127.0.0.1:9\ntenants: []\n", "test")
                .limits();
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        QueryConfig config = new QueryConfigLoader()
                .parse(
                        "listen: 127.0.0.1:0\ndata_dir: " + data + "\ntenants:\n  - id: acme\n    api_key_sha256: ["
                                + ConfiguredKeys.sha256("acme-key-0123456789") + "]\n",
                        "test");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Handler collector = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                throw new IllegalStateException("the collector failed (test)");
            }
        };
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofMillis(50));
                QueryService query = QueryService.create(
                        config,
                        shards,
                        new ConfiguredKeys(config.keys())::authenticate,
                        IndexerProgress.NONE,
                        InstantSource.system(),
                        registry)) {
            StandaloneServer s = new StandaloneServer(
                    new InetSocketAddress("127.0.0.1", 0),
                    16,
                    limits,
                    new StandaloneServer.Routes(
                            collector,
                            null,
                            () -> "{}",
                            query.handler(),
                            null,
                            () -> true,
                            () -> "",
                            () -> "",
                            query::failedOutside));
            s.start();
            try {
                String base = "http://127.0.0.1:" + s.address().getPort();
                check(
                        HTTP.send(
                                HttpRequest.newBuilder(URI.create(base + "/api/v1/logs"))
                                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString()),
                        500,
                        "internal");
                try (Socket raw = new Socket("127.0.0.1", s.address().getPort())) {
                    raw.getOutputStream()
                            .write("POST /api/v1/logs HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n"
                                    .getBytes(StandardCharsets.US_ASCII));
                    String answer = new String(raw.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                    assertThat(answer).isEqualTo("HTTP/1.1 400");
                }
                assertThat(get(base + "/api/v1/search").statusCode()).isEqualTo(401); // a query request: audited
                assertThat(Files.readAllLines(config.auditLog()))
                        .singleElement()
                        .satisfies(l -> assertThat(l).contains("\"endpoint\":\"search\"", "\"status\":401"));
                assertThat(registry.scrape())
                        .contains("endpoint=\"search\"")
                        .doesNotContain("endpoint=\"unknown\"", "reason=\"internal\"", "reason=\"bad_request\"");
            } finally {
                s.close();
            }
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
