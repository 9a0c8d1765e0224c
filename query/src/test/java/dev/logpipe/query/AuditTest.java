package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query audit log over real HTTP: every request is one line (answered, refused, failing with an error the
 * container answers), with the client address; wrong keys past the per-address burst are 429s; the log is rotated by
 * size and age, old files deleted, long values cut with their length.
 */
class AuditTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    private static HttpResponse<String> send(InetSocketAddress a, String method, String path, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<JsonNode> lines(Path file) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : Files.readAllLines(file)) {
            out.add(JSON.readTree(l));
        }
        return out;
    }

    @Test
    void everyRequestIsAuditedExactlyOnceWithItsClientEvenWhenAnErrorEscapesToTheContainer() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        QueryConfig config = QueryFixture.config(data, "auth:\n  failure_burst: 4\n  failures_per_minute: 1\n");
        ConfiguredKeys keys = new ConfiguredKeys(config.keys());
        // the key "oom-key" makes authentication throw what a heap exhausted mid-request throws
        AtomicReference<Error> boom = new AtomicReference<>();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofMillis(50));
                QueryService service = QueryService.create(
                        config,
                        shards,
                        k -> {
                            if (k.equals("oom-key")) {
                                Error e = new OutOfMemoryError("Java heap space (test)");
                                boom.set(e);
                                throw e;
                            }
                            return keys.authenticate(k);
                        },
                        IndexerProgress.NONE,
                        InstantSource.system(),
                        registry)) {
            shards.start();
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, 32);
            server.start();
            try {
                InetSocketAddress a = server.address();
                String acme = "Bearer " + ACME_KEY;
                List<Integer> statuses = new ArrayList<>();
                statuses.add(send(a, "GET", "/api/v1/search?q=x", "Authorization", acme)
                        .statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=x").statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer wrong")
                        .statusCode());
                statuses.add(send(
                                a,
                                "GET",
                                "/api/v1/search?q=x",
                                "Authorization",
                                "Bearer " + GLOBEX_KEY,
                                "Authorization",
                                acme)
                        .statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=x&tenant=globex", "Authorization", acme)
                        .statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=level:(ERROR", "Authorization", acme)
                        .statusCode());
                statuses.add(
                        send(a, "POST", "/api/v1/search", "Authorization", acme).statusCode());
                statuses.add(send(a, "GET", "/api/v1/context/nope", "Authorization", acme)
                        .statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer oom-key")
                        .statusCode());
                statuses.add(send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer wrong2")
                        .statusCode());
                // the fifth failure from 127.0.0.1 in the burst of 4: too many
                HttpResponse<String> throttled = send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer w3");
                statuses.add(throttled.statusCode());
                assertThat(boom.get()).isNotNull();
                assertThat(statuses).containsExactly(200, 401, 401, 401, 403, 400, 405, 404, 500, 401, 429);
                assertThat(throttled.headers().firstValue("Retry-After"))
                        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
                assertThat(JSON.readTree(throttled.body()).path("reason").asText())
                        .isEqualTo("auth_failures");
                assertThat(registry.scrape()).contains("logpipe_auth_failures_total{outcome=\"throttled\"} 1.0");

                List<JsonNode> audit = lines(config.auditLog());
                assertThat(audit).extracting(n -> n.path("status").asInt()).containsExactlyElementsOf(statuses);
                assertThat(audit)
                        .allSatisfy(n -> assertThat(n.path("client").asText()).isEqualTo("127.0.0.1"));
                assertThat(audit)
                        .extracting(n -> n.path("reason").asText())
                        .containsExactly(
                                "",
                                "unauthenticated",
                                "unauthenticated",
                                "ambiguous_credentials",
                                "foreign_tenant",
                                "bad_query",
                                "method_not_allowed",
                                "not_found",
                                "",
                                "unauthenticated",
                                "auth_failures");
                assertThat(audit.get(8).path("outcome").asText()).isEqualTo("error");
                assertThat(audit.get(8).path("error").asText()).isEqualTo("OutOfMemoryError");
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config.auditLog())))
                        .isEqualTo("rw-------");
            } finally {
                server.close();
            }
        }
    }

    /**
     * Review of issue 24, finding 11: the deadline counted from the request's arrival but the latency and the audit's
     * {@code duration_ms} from the handler's start, hiding the time a request queued for a server thread. A request
     * that arrived two seconds before the handler saw it (as Jetty reports it) is measured from its arrival.
     */
    @Test
    void latencyAndDurationCountFromTheRequestsArrival() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        QueryConfig config = QueryFixture.config(data, "limits:\n  query_timeout: 30s\n");
        ConfiguredKeys keys = new ConfiguredKeys(config.keys());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        long queued = Duration.ofSeconds(2).toNanos();
        Server server = new Server();
        ServerConnector c = new ServerConnector(server);
        c.setHost("127.0.0.1");
        c.setPort(0);
        server.addConnector(c);
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofMillis(50));
                QueryService service = QueryService.create(
                        config, shards, keys::authenticate, IndexerProgress.NONE, InstantSource.system(), registry)) {
            shards.start();
            server.setHandler(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    Request queuedFor2s = new Request.Wrapper(request) {
                        @Override
                        public long getBeginNanoTime() {
                            return super.getBeginNanoTime() - queued;
                        }
                    };
                    return service.handle(queuedFor2s, response, callback);
                }
            });
            server.start();
            long t0 = System.nanoTime();
            HttpResponse<String> r = send(
                    new InetSocketAddress("127.0.0.1", c.getLocalPort()),
                    "GET",
                    "/api/v1/search?q=x",
                    "Authorization",
                    "Bearer " + ACME_KEY);
            long took = System.nanoTime() - t0;
            assertThat(r.statusCode()).isEqualTo(200);
            Timer timer = registry.get("logpipe_query.request.seconds")
                    .tags("endpoint", "search", "status", "200")
                    .timer();
            assertThat(timer.count()).isEqualTo(1);
            assertThat((long) timer.totalTime(TimeUnit.NANOSECONDS)).isBetween(queued, queued + took);
            assertThat(lines(config.auditLog()).get(0).path("duration_ms").asLong())
                    .isBetween(queued / 1_000_000, (queued + took) / 1_000_000);
        } finally {
            server.stop();
        }
    }

    @Test
    void theLogIsRotatedBySizeAndAgeAndOldFilesAreDeleted() throws Exception {
        Path log = dir.resolve("audit").resolve("query-audit.jsonl");
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));
        InstantSource clock = now::get;
        QueryConfig.Audit policy = new QueryConfig.Audit(log, 4096, 3, Duration.ofHours(1), Duration.ofDays(2), 1024);
        try (var audit = new dev.logpipe.query.internal.audit.QueryAudit(policy, clock)) {
            for (int i = 0; i < 200; i++) { // ~100 bytes a line: about 5 files' worth
                var line = audit.line("search", "10.0.0." + (i % 250));
                line.node().put("query", "q" + "x".repeat(40) + i);
                line.write();
                now.set(now.get().plusMillis(10));
            }
            assertThat(audit.rotations()).isGreaterThanOrEqualTo(4);
            assertThat(rotated(log)).hasSize(3); // max_files
            assertThat(Files.size(log)).isLessThanOrEqualTo(4096);
            for (Path r : rotated(log)) {
                assertThat(Files.size(r)).isLessThanOrEqualTo(4096);
            }
            // an hour later the file is rotated whatever its size; rotated files older than two days are deleted
            now.set(now.get().plus(Duration.ofHours(1)));
            audit.line("search", "10.0.0.1").write();
            assertThat(Files.readAllLines(log)).hasSize(1);
            now.set(now.get().plus(Duration.ofDays(3)));
            audit.line("search", "10.0.0.1").write();
            assertThat(rotated(log)).hasSize(1); // only the one rotated now: the others are past max_age
        }
    }

    /**
     * Review of issue 24, finding 7: rotate() closed the file before renaming it, so a failed rename left the audit
     * closed until a restart (every later line lost). Now the same file is appended to and the rotation retried later.
     */
    @Test
    void aFailedRotationKeepsAppendingAndIsRetriedLater() throws Exception {
        Path log = dir.resolve("audit").resolve("query-audit.jsonl");
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));
        QueryConfig.Audit policy =
                new QueryConfig.Audit(log, 1 << 20, 3, Duration.ofHours(1), Duration.ofDays(2), 1024);
        try (var audit = new dev.logpipe.query.internal.audit.QueryAudit(policy, now::get)) {
            audit.line("search", "10.0.0.1").write();
            now.set(now.get().plus(Duration.ofHours(1)));
            // the rotated name is taken by a directory: the rename fails (EISDIR)
            Path blocker = log.resolveSibling("query-audit.jsonl.20261201T010000.000Z");
            Files.createDirectories(blocker.resolve("x"));
            for (int i = 0; i < 3; i++) {
                audit.line("search", "10.0.0.2").write();
            }
            assertThat(audit.failures()).isZero();
            assertThat(audit.rotationFailures()).isEqualTo(1);
            assertThat(Files.readAllLines(log)).hasSize(4);
            Files.delete(blocker.resolve("x"));
            Files.delete(blocker);
            now.set(now.get().plus(Duration.ofMinutes(1))); // retried once the minute is over
            audit.line("search", "10.0.0.3").write();
            assertThat(audit.rotations()).isEqualTo(1);
            assertThat(Files.readAllLines(log)).hasSize(1);
            assertThat(rotated(log))
                    .singleElement()
                    .satisfies(r -> assertThat(Files.readAllLines(r)).hasSize(4));
        }
    }

    /**
     * Review of issue 24, finding 7: every throttled {@code 429 auth_failures} wrote a line, so a flood of wrong keys
     * rotated the real lines away. Now one line per address per Retry-After window, the next one counting the rest.
     */
    @Test
    void throttledRefusalsWriteOneLinePerAddressPerRetryAfter() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        QueryConfig config = QueryFixture.config(data, "auth:\n  failure_burst: 1\n  failures_per_minute: 1\n");
        ConfiguredKeys keys = new ConfiguredKeys(config.keys());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofMillis(50));
                QueryService service = QueryService.create(
                        config, shards, keys::authenticate, IndexerProgress.NONE, now::get, registry)) {
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, 32);
            server.start();
            try {
                InetSocketAddress a = server.address();
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    statuses.add(send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer wrong" + i)
                            .statusCode());
                }
                assertThat(statuses.subList(0, 2)).containsExactly(401, 429); // the burst of one, then throttled
                assertThat(statuses.subList(2, 30)).containsOnly(429);
                assertThat(lines(config.auditLog()))
                        .extracting(n -> n.path("reason").asText())
                        .containsExactly("unauthenticated", "auth_failures");
                assertThat(registry.get("logpipe_query.audit.suppressed")
                                .gauge()
                                .value())
                        .isEqualTo(28);
                // a refusal after the window is written again, with the count of those left out
                now.set(now.get().plus(Duration.ofMinutes(2)));
                assertThat(send(a, "GET", "/api/v1/search?q=x", "Authorization", "Bearer wrong-again")
                                .statusCode())
                        .isEqualTo(429);
                assertThat(lines(config.auditLog())).hasSize(3);
                assertThat(lines(config.auditLog()).get(2).path("suppressed").asLong())
                        .isEqualTo(28);
            } finally {
                server.close();
            }
        }
    }

    private static List<Path> rotated(Path log) throws Exception {
        try (Stream<Path> s = Files.list(log.getParent())) {
            return s.filter(p -> p.getFileName().toString().startsWith("query-audit.jsonl."))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aLongQueryIsCutToTheLineCapWithItsOriginalLength() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        QueryConfig.Audit policy =
                new QueryConfig.Audit(log, 1 << 20, 3, Duration.ofHours(1), Duration.ofDays(2), 1024);
        try (var audit = new dev.logpipe.query.internal.audit.QueryAudit(policy, InstantSource.system())) {
            var line = audit.line("search", "10.0.0.1");
            String q = "é".repeat(4000); // 8,000 bytes of UTF-8
            line.node().put("query", q).put("tenant_id", "acme").put("status", 200);
            line.write();
            assertThat(audit.truncated()).isEqualTo(1);
        }
        String written = Files.readString(log);
        assertThat(written.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(1024);
        JsonNode n = JSON.readTree(written);
        assertThat(n.path("query").asText()).startsWith("éé").endsWith("…");
        assertThat(n.path("truncated").path("query").asInt()).isEqualTo(4000);
        assertThat(n.path("tenant_id").asText()).isEqualTo("acme");
        assertThat(n.path("client").asText()).isEqualTo("10.0.0.1");
    }

    @Test
    void theAuditAndAuthKeysAreReadAndValidatedByKeyPath() throws Exception {
        QueryConfig c = QueryFixture.config(dir, """
                audit:
                  max_file_bytes: 1MiB
                  max_files: 4
                  rotate_after: 1h
                  max_age: 7d
                  max_line_bytes: 2KiB
                auth:
                  failures_per_minute: 10
                """);
        assertThat(c.audit().maxFileBytes()).isEqualTo(1 << 20);
        assertThat(c.audit().maxFiles()).isEqualTo(4);
        assertThat(c.audit().rotateAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(c.audit().maxAge()).isEqualTo(Duration.ofDays(7));
        assertThat(c.audit().maxLineBytes()).isEqualTo(2048);
        assertThat(c.auth().perMinute()).isEqualTo(10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueryFixture.config(dir, "audit:\n  max_files: 0\n"))
                .hasMessageContaining("audit.max_files");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> QueryFixture.config(dir, "audit:\n  max_line_bytes: 100\n"))
                .hasMessageContaining("audit.max_line_bytes");
        assertThat(Optional.of(new Credential("a", "b"))).isPresent();
    }
}
