package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.config.ConfigException;
import dev.logpipe.server.cli.LogpipeCommand;
import dev.logpipe.server.keys.KeyStore;
import dev.logpipe.testkit.Integration;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole standalone in this JVM: a real broker, collector, indexer, one HTTP port, keys on disk. */
@Integration
class StandaloneTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "test-default-key-0123456789";
    private static final String ADMIN = "test-admin-key-0123456789";

    @TempDir
    Path dir;

    private StandaloneConfig config() throws ConfigException {
        return new StandaloneConfigLoader()
                .load(null, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
    }

    private Standalone start() throws Exception {
        return Standalone.start(
                config(), Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN), Clock.systemUTC());
    }

    private static long queryable(Standalone s) throws Exception {
        return JSON.readTree(
                        Http.get(s.baseUrl() + "/api/v1/indexer/status", null).body())
                .path("totals")
                .path("queryable")
                .asLong();
    }

    @Test
    void onePortServesIngestStatusHealthMetricsAndTheUiWithTheKeysOfTheFirstStart() throws Exception {
        try (Standalone s = start()) {
            assertThat(s.firstStart().tenantKey().key()).isEqualTo(KEY);
            assertThat(s.firstStart().banner(s.baseUrl()))
                    .doesNotContain(KEY)
                    .doesNotContain(ADMIN)
                    .contains("taken from LOGPIPE_API_KEY")
                    .contains("taken from LOGPIPE_ADMIN_KEY")
                    .contains("curl")
                    .contains(s.baseUrl() + "/api/v1/logs")
                    .contains("patterns: [\"*.log\"]");
            assertThat(Files.readString(dir.resolve("data/keys.json")))
                    .doesNotContain(KEY)
                    .doesNotContain(ADMIN);
            Http.Answer ok = Http.post(s.baseUrl() + "/api/v1/logs", KEY, "{\"message\":\"hello one port\"}\n");
            assertThat(ok.status()).as(ok.body()).isEqualTo(200);
            assertThat(ok.body()).contains("DURABLE_IN_BROKER");
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", "wrong-key-wrong-key", "{\"message\":\"x\"}")
                            .status())
                    .isEqualTo(401);
            assertThat(Http.get(s.baseUrl() + "/healthz", null).status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.get(s.baseUrl() + "/readyz", null).status() == 200);
            await().atMost(Duration.ofSeconds(15)).until(() -> queryable(s) == 1);
            String metrics = Http.get(s.baseUrl() + "/metrics", null).body();
            assertThat(metrics).contains("logpipe_collector").contains("logpipe_indexer");
            Http.Answer ui = Http.get(s.baseUrl() + "/", null);
            assertThat(ui.status()).isEqualTo(200);
            assertThat(ui.body()).contains("<script type=\"module\" src=\"/ui/app.js\">");
            assertThat(Http.get(s.baseUrl() + "/ui/app.js", null).status()).isEqualTo(200);
            assertThat(Http.get(s.baseUrl() + "/ui/..%2Fkeys.json", null).status())
                    .isIn(400, 404);
            assertThat(Http.get(s.baseUrl() + "/ui/keys.json", null).status()).isEqualTo(404);
            assertThat(Http.get(s.baseUrl() + "/api/v1/whoami", KEY).body()).contains("\"tenant\":\"default\"");
            assertThat(Http.get(s.baseUrl() + "/api/v1/whoami", "nope-nope-nope-nope")
                            .status())
                    .isEqualTo(401);
            // the admin key signs in to the UI's admin view (it was refused with 403 before the view existed)
            assertThat(Http.get(s.baseUrl() + "/api/v1/whoami", ADMIN).body()).contains("\"admin\":true");
        }
    }

    @Test
    void keysMadeByTheCliWorkWithoutARestartAndRevokedOnesStop() throws Exception {
        try (Standalone s = start()) {
            PrintStream out = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured, true));
            int code;
            try {
                code = LogpipeCommand.commandLine()
                        .execute(
                                "keys",
                                "create",
                                "--tenant",
                                "globex",
                                "--data",
                                dir.resolve("data").toString());
            } finally {
                System.setOut(out);
            }
            assertThat(code).isZero();
            String key = captured.toString().strip();
            assertThat(key).startsWith("lpk_");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Http.post(s.baseUrl() + "/api/v1/logs", key, "{\"message\":\"globex line\"}")
                                    .status()
                            == 200);
            String id = s.keys().current().keys().stream()
                    .filter(k -> "globex".equals(k.tenant()))
                    .findFirst()
                    .orElseThrow()
                    .id();
            assertThat(LogpipeCommand.commandLine()
                            .execute(
                                    "keys",
                                    "revoke",
                                    id,
                                    "--data",
                                    dir.resolve("data").toString()))
                    .isZero();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Http.post(s.baseUrl() + "/api/v1/logs", key, "{\"message\":\"after revoke\"}")
                                    .status()
                            == 401);
        }
    }

    @Test
    void theAdminApiNeedsTheAdminKeyAndManagesKeysAndLimits() throws Exception {
        try (Standalone s = start()) {
            String base = s.baseUrl() + "/api/v1/admin/";
            assertThat(Http.get(base + "tenants", null).status()).isEqualTo(401);
            assertThat(Http.get(base + "tenants", KEY).status()).isEqualTo(403);
            Http.Answer made = Http.post(base + "tenants/initech/keys", ADMIN, "");
            assertThat(made.status()).as(made.body()).isEqualTo(201);
            JsonNode m = JSON.readTree(made.body());
            String key = m.get("key").asText();
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", key, "{\"message\":\"initech\"}")
                            .status())
                    .isEqualTo(200);
            String list = Http.get(base + "tenants", ADMIN).body();
            assertThat(list)
                    .contains("initech")
                    .contains(m.get("key_id").asText())
                    .doesNotContain(key);
            assertThat(Http.send(
                                    "PUT",
                                    base + "tenants/initech/limits",
                                    ADMIN,
                                    "{\"records_per_second\":100,\"bytes_per_second\":0}")
                            .status())
                    .isEqualTo(200);
            // the new limit applies to the running collector at once: one request may finish in debt, the next
            // is refused until the bucket refills; back to unlimited (0), it is admitted again
            String batch = "{\"message\":\"limited\"}\n".repeat(500);
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", key, batch).status())
                    .isEqualTo(200);
            Http.Answer refused = Http.post(s.baseUrl() + "/api/v1/logs", key, batch);
            assertThat(refused.status()).as(refused.body()).isEqualTo(429);
            assertThat(refused.body()).contains("records_per_second");
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, batch).status())
                    .as("another tenant is not limited")
                    .isEqualTo(200);
            assertThat(Http.send(
                                    "PUT",
                                    base + "tenants/initech/limits",
                                    ADMIN,
                                    "{\"records_per_second\":0,\"bytes_per_second\":0}")
                            .status())
                    .isEqualTo(200);
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", key, batch).status())
                    .isEqualTo(200);
            assertThat(Http.send("PUT", base + "tenants/initech/limits", ADMIN, "{\"records_per_second\":-1}")
                            .status())
                    .isEqualTo(400);
            assertThat(Http.send("DELETE", base + "keys/" + m.get("key_id").asText(), ADMIN, null)
                            .status())
                    .isEqualTo(200);
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", key, "{\"message\":\"gone\"}")
                            .status())
                    .isEqualTo(401);
            assertThat(Http.post(base + "tenants/Bad Name/keys".replace(" ", "%20"), ADMIN, "")
                            .status())
                    .isEqualTo(400);
            // the legal-hold admin API of the indexer is on the same port, guarded by the same admin key
            assertThat(Http.get(s.baseUrl() + "/api/v1/admin/legal-holds", ADMIN)
                            .status())
                    .isEqualTo(200);
            assertThat(Http.get(s.baseUrl() + "/api/v1/admin/legal-holds", KEY).status())
                    .isIn(401, 403);
            // and the archive tier's (the standalone archives under DATA/archive)
            Http.Answer archives = Http.get(s.baseUrl() + "/api/v1/admin/archives", ADMIN);
            assertThat(archives.status()).as(archives.body()).isEqualTo(200);
            assertThat(archives.body()).startsWith("{\"archives\":[");
            assertThat(Http.get(s.baseUrl() + "/api/v1/admin/archives", KEY).status())
                    .isIn(401, 403);
        }
    }

    @Test
    void ruleGroupsAreManagedThroughTheAdminApiAndTheirSeriesReachMetrics() throws Exception {
        try (Standalone s = start()) {
            String rules = s.baseUrl() + "/api/v1/admin/rules";
            String group = "name: counted\ninterval: 1s\nrules:\n  - record: service:lines:count1h\n"
                    + "    expr: sum by (service) (count_over_time({service=\"billing\"}[1h]))\n";
            assertThat(Http.send("PUT", rules + "/default/counted", KEY, group).status())
                    .as("a tenant key manages no rules")
                    .isEqualTo(403);
            Http.Answer stored = Http.send("PUT", rules + "/default/counted", ADMIN, group);
            assertThat(stored.status()).as(stored.body()).isEqualTo(201);
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, "{\"message\":\"paid\",\"service\":\"billing\"}")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Http.get(s.baseUrl() + "/metrics/rules", ADMIN)
                            .body()
                            .contains("service:lines:count1h{service=\"billing\",tenant_id=\"default\"} 1"));
            assertThat(Http.get(s.baseUrl() + "/metrics", null).body())
                    .as("the open /metrics never shows a tenant's recorded series")
                    .doesNotContain("service:lines:count1h");
            assertThat(Http.get(s.baseUrl() + "/metrics/rules", KEY).status()).isEqualTo(403);
            assertThat(Http.get(rules, ADMIN).body()).contains("\"source\":\"api\"");
            assertThat(Http.send("DELETE", rules + "/default/counted", ADMIN, null)
                            .status())
                    .isEqualTo(200);
            assertThat(Http.get(s.baseUrl() + "/metrics/rules", ADMIN).body()).doesNotContain("service:lines:count1h");
        }
    }

    @Test
    void aRestartKeepsKeysRecordsAndOffsets() throws Exception {
        try (Standalone s = start()) {
            for (int i = 0; i < 5; i++) {
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, "{\"message\":\"before " + i + "\"}")
                                .status())
                        .isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> queryable(s) == 5);
        }
        try (Standalone s = Standalone.start(config(), Map.of(), Clock.systemUTC())) {
            assertThat(s.firstStart()).as("no new keys on a restart").isNull();
            assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, "{\"message\":\"after\"}")
                            .status())
                    .isEqualTo(200);
            // offsets kept: the indexer resumes, it does not re-read from zero (queryable counts offsets)
            await().atMost(Duration.ofSeconds(30)).until(() -> queryable(s) == 6);
        }
    }

    private static JsonNode search(Standalone s, String key, String q) throws Exception {
        Http.Answer a = Http.get(
                s.baseUrl() + "/api/v1/search?from=now-1h&q=" + URLEncoder.encode(q, StandardCharsets.UTF_8), key);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return JSON.readTree(a.body());
    }

    @Test
    void recordsAreFoundThroughTheQueryApiAndASecondTenantSeesOnlyItsOwn() throws Exception {
        try (Standalone s = start()) {
            String other = s.keys().current().tenants().containsKey("globex")
                    ? null
                    : new KeyStore(dir.resolve("data"), Clock.systemUTC())
                            .createKey("globex", null)
                            .key();
            assertThat(Http.post(
                                    s.baseUrl() + "/api/v1/logs",
                                    KEY,
                                    "{\"message\":\"needle-default alpha\",\"level\":\"ERROR\"}")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Http.post(s.baseUrl() + "/api/v1/logs", other, "{\"message\":\"needle-globex beta\"}")
                                    .status()
                            == 200);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> search(s, KEY, "needle").path("hits").size() == 1
                            && search(s, other, "needle").path("hits").size() == 1);
            JsonNode mine = search(s, KEY, "needle");
            assertThat(mine.path("hits").get(0).path("message").asText()).isEqualTo("needle-default alpha");
            assertThat(mine.path("hits").get(0).path("tenant_id").asText()).isEqualTo("default");
            JsonNode theirs = search(s, other, "needle OR tenant_id:default OR *:*");
            assertThat(theirs.path("hits"))
                    .allSatisfy(h -> assertThat(h.path("tenant_id").asText()).isEqualTo("globex"));
            assertThat(Http.get(s.baseUrl() + "/api/v1/search?q=needle&tenant=default", other)
                            .status())
                    .isEqualTo(403);
            assertThat(Http.get(s.baseUrl() + "/api/v1/search?q=needle", ADMIN).status())
                    .isEqualTo(401);
            assertThat(Http.get(s.baseUrl() + "/api/v1/search?q=needle", null).status())
                    .isEqualTo(401);
            Http.Answer bad = Http.get(s.baseUrl() + "/api/v1/search?q=%28unclosed", KEY);
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.body()).contains("position");
            // Grafana's Loki data source on the same port (docs/loki.md): its health check, and LogQL per tenant
            Http.Answer health = Http.get(
                    s.baseUrl() + "/loki/api/v1/query?direction=backward&time=4000000000&query="
                            + URLEncoder.encode("vector(1)+vector(1)", StandardCharsets.UTF_8),
                    KEY);
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.body()).contains("\"resultType\":\"vector\"").contains("\"2\"");
            String logql = "/loki/api/v1/query_range?limit=10&query="
                    + URLEncoder.encode("{level=~\".+\"} |= \"needle\"", StandardCharsets.UTF_8);
            Http.Answer lines = Http.get(s.baseUrl() + logql, KEY);
            assertThat(lines.status()).isEqualTo(200);
            assertThat(lines.body()).contains("needle-default alpha").doesNotContain("needle-globex");
            assertThat(Http.get(s.baseUrl() + logql, other).body())
                    .contains("needle-globex beta")
                    .doesNotContain("needle-default");
        }
    }

    @Test
    void throughTheOnePortAGzipBombStopsAtTheDecodedCapAndAnotherTenantsCursorIsRefused() throws Exception {
        try (Standalone s = start()) {
            String other = new KeyStore(dir.resolve("data"), Clock.systemUTC())
                    .createKey("globex", null)
                    .key();
            // 100 MiB of blank lines in ~100 KiB of gzip: the collector's max_decoded_bytes (64 MiB) stops it
            ByteArrayOutputStream bomb = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(bomb)) {
                byte[] newlines = new byte[1 << 20];
                Arrays.fill(newlines, (byte) '\n');
                for (int i = 0; i < 100; i++) {
                    gz.write(newlines);
                }
            }
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(s.baseUrl() + "/api/v1/logs"))
                                    .header("Authorization", "Bearer " + KEY)
                                    .header("Content-Encoding", "gzip")
                                    .timeout(Duration.ofSeconds(30))
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(bomb.toByteArray()))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(413);

            // two records per tenant (distinct lines: the same line again has the same record id and replaces it)
            for (String key : List.of(KEY, other)) {
                for (int n = 1; n <= 2; n++) {
                    String line = "{\"message\":\"paged cursorprobe " + n + "\"}";
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> Http.post(s.baseUrl() + "/api/v1/logs", key, line)
                                            .status()
                                    == 200);
                }
            }
            String path = "/api/v1/search?from=now-1h&limit=1&q=cursorprobe";
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(search(s, KEY, "cursorprobe").path("hits")).hasSize(2);
                assertThat(search(s, other, "cursorprobe").path("hits")).hasSize(2);
            });
            String theirs = JSON.readTree(Http.get(s.baseUrl() + path, other).body())
                    .path("next_cursor")
                    .asText();
            assertThat(theirs).isNotEmpty();
            Http.Answer foreign = Http.get(s.baseUrl() + path + "&cursor=" + theirs, KEY);
            assertThat(foreign.status()).as(foreign.body()).isEqualTo(400);
            assertThat(JSON.readTree(foreign.body()).path("reason").asText()).isEqualTo("bad_cursor");
            Http.Answer own = Http.get(s.baseUrl() + path + "&cursor=" + theirs, other);
            assertThat(own.status()).as(own.body()).isEqualTo(200);
            assertThat(JSON.readTree(own.body())
                            .path("hits")
                            .get(0)
                            .path("tenant_id")
                            .asText())
                    .isEqualTo("globex");
        }
    }

    @Test
    void theOnePortKeepsTheCollectorsConnectionCapsPerClientAddress() throws Exception {
        Path file = dir.resolve("standalone.yaml");
        Files.writeString(file, "collector:\n  limits:\n    max_connections_per_address: 2\n");
        StandaloneConfig c = new StandaloneConfigLoader()
                .load(file, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
        assertThat(StandaloneConfigLoader.collector(c, "127.0.0.1:1", List.of())
                        .limits()
                        .maxConnectionsPerAddress())
                .isEqualTo(2);
        try (Standalone s = Standalone.start(
                        c, Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN), Clock.systemUTC());
                Socket first = new Socket("127.0.0.1", s.address().getPort());
                Socket second = new Socket("127.0.0.1", s.address().getPort());
                Socket third = new Socket("127.0.0.1", s.address().getPort())) {
            // Which of the three the server accepts last is up to its acceptor: exactly one is closed at once.
            List<Socket> open = new ArrayList<>();
            int closed = 0;
            for (Socket socket : List.of(first, second, third)) {
                socket.setSoTimeout(2_000);
                try {
                    if (socket.getInputStream().read() == -1) {
                        closed++;
                    }
                } catch (SocketTimeoutException stillOpen) {
                    open.add(socket);
                }
            }
            assertThat(closed)
                    .as("connections beyond 2 from one address are closed")
                    .isEqualTo(1);
            assertThat(open).hasSize(2);
            Socket kept = open.get(0);
            kept.setSoTimeout(10_000);
            kept.getOutputStream()
                    .write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(kept.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
                    .isEqualTo("HTTP/1.1 200");
        }
    }

    @Test
    void alertRulesRunOnTheStandaloneAndReachTheirWebhook() throws Exception {
        java.util.List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer hook =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        hook.start();
        try {
            Files.writeString(dir.resolve("rules.yaml"), """
                    groups:
                      - name: errors
                        interval: 1s
                        rules:
                          - alert: StandaloneErrors
                            expr: sum(count_over_time({level="ERROR"} |= "alarm" [5m])) > 0
                    """);
            Path file = dir.resolve("standalone.yaml");
            Files.writeString(file, """
                    query:
                      alerting:
                        webhook_url: http://127.0.0.1:%d/hook
                        resend_interval: 1s
                        rules:
                          - tenant: default
                            file: %s
                    """.formatted(hook.getAddress().getPort(), dir.resolve("rules.yaml")));
            StandaloneConfig c = new StandaloneConfigLoader()
                    .load(file, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
            try (Standalone s = Standalone.start(
                    c, Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN), Clock.systemUTC())) {
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, "{\"message\":\"alarm\",\"level\":\"ERROR\"}")
                                .status())
                        .isEqualTo(200);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bodies.stream()
                                .anyMatch(b -> b.contains("\"status\":\"firing\"")
                                        && b.contains("\"alertname\":\"StandaloneErrors\"")
                                        && b.contains("\"tenant_id\":\"default\"")));
                assertThat(Http.get(s.baseUrl() + "/api/v1/status", KEY).body()).contains("\"StandaloneErrors\"");
            }
        } finally {
            hook.stop(0);
        }
    }

    @Test
    void configErrorsNameTheKeyPath() throws Exception {
        Path file = dir.resolve("standalone.yaml");
        Files.writeString(file, "indexer:\n  commit:\n    interval: -1s\n");
        StandaloneConfig c = new StandaloneConfigLoader()
                .load(file, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
        assertThatThrownBy(() -> StandaloneConfigLoader.indexer(c, "127.0.0.1:1", List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("indexer.commit.interval");
        Files.writeString(file, "collector:\n  listen: 0.0.0.0:80\n");
        assertThatThrownBy(() -> new StandaloneConfigLoader()
                        .load(file, new StandaloneConfigLoader.Flags(null, null, null, false)))
                .hasMessageContaining("collector.listen: is set by logpipe standalone; use --port");
        Files.writeString(file, "indexer:\n  store: opensearch\n");
        assertThatThrownBy(() -> new StandaloneConfigLoader()
                        .load(file, new StandaloneConfigLoader.Flags(null, null, null, false)))
                .hasMessageStartingWith("indexer.store: logpipe standalone indexes into its own Lucene shards");
        Files.writeString(file, "query:\n  opensearch:\n    hosts: [\"http://h:9200\"]\n");
        assertThatThrownBy(() -> new StandaloneConfigLoader()
                        .load(file, new StandaloneConfigLoader.Flags(null, null, null, false)))
                .hasMessageStartingWith("query.opensearch: logpipe standalone");
        Files.writeString(file, "collector:\n  syslog:\n    listeners: []\n");
        assertThatThrownBy(() -> new StandaloneConfigLoader()
                        .load(file, new StandaloneConfigLoader.Flags(null, null, null, false)))
                .hasMessageStartingWith("collector.syslog: syslog listeners are not served by logpipe standalone");
        Files.writeString(file, "colector: {}\n");
        assertThatThrownBy(() -> new StandaloneConfigLoader()
                        .load(file, new StandaloneConfigLoader.Flags(null, null, null, false)))
                .hasMessageStartingWith("colector: unknown");
    }
}
