package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alert rules end to end with Debian's real Alertmanager ({@code prometheus-alertmanager}, which {@code .ci/run}
 * installs): a burst of ERROR lines fires the tenant's rule, Alertmanager's {@code /api/v2/alerts} shows it with the
 * rule's labels and its webhook receiver gets it, as does logpipe's own webhook; once the burst leaves the rule's
 * window the alert resolves in both. The other tenant's identical rule never sees these lines.
 */
@Integration
class AlertingTest {
    static final String ALERTMANAGER = System.getenv().getOrDefault("ALERTMANAGER", "/usr/bin/prometheus-alertmanager");
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anErrorBurstFiresInAlertmanagerAndResolvesAfterIt() throws Exception {
        assertThat(Path.of(ALERTMANAGER))
                .as("Debian's prometheus-alertmanager (apt-get install prometheus-alertmanager; .ci/run does)")
                .isExecutable();
        List<JsonNode> fromAlertmanager = new CopyOnWriteArrayList<>();
        List<JsonNode> fromLogpipe = new CopyOnWriteArrayList<>();
        HttpServer hooks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hooks.createContext("/", ex -> {
            JsonNode body = QueryFixture.JSON.readTree(ex.getRequestBody().readAllBytes());
            (ex.getRequestURI().getPath().equals("/am") ? fromAlertmanager : fromLogpipe).add(body);
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        hooks.start();
        int amPort = freePort();
        Path amConfig = dir.resolve("alertmanager.yml");
        Files.writeString(amConfig, """
                route:
                  receiver: hook
                  group_by: [alertname, tenant_id]
                  group_wait: 0s
                  group_interval: 1s
                  repeat_interval: 1h
                receivers:
                  - name: hook
                    webhook_configs:
                      - url: http://127.0.0.1:%d/am
                        send_resolved: true
                """.formatted(hooks.getAddress().getPort()));
        Process am = new ProcessBuilder(
                        ALERTMANAGER,
                        "--config.file=" + amConfig,
                        "--storage.path=" + dir.resolve("am-data"),
                        "--web.listen-address=127.0.0.1:" + amPort,
                        "--cluster.listen-address=")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("alertmanager.log").toFile())
                .start();
        String amUrl = "http://127.0.0.1:" + amPort;
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        String rule = """
                groups:
                  - name: errors
                    interval: 1s
                    rules:
                      - alert: ErrorBurst
                        expr: sum by (service) (count_over_time({level="ERROR"} |= "payment" [8s])) > 5
                        for: 1s
                        labels:
                          severity: page
                        annotations:
                          summary: "{{ $value }} payment errors in {{ $labels.service }}"
                          lines: "{{ $sample_lines }}"
                """;
        Files.writeString(dir.resolve("acme-rules.yaml"), rule);
        Files.writeString(dir.resolve("globex-rules.yaml"), rule);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                try {
                    return get(amUrl + "/-/ready").statusCode() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
            QueryConfig config = QueryFixture.config(data, """
                    alerting:
                      alertmanager_url: %s
                      webhook_url: http://127.0.0.1:%d/direct
                      external_url: http://logpipe.example
                      resend_interval: 1s
                      rules:
                        - tenant: acme
                          file: %s
                        - tenant: globex
                          file: %s
                    """.formatted(
                            amUrl,
                            hooks.getAddress().getPort(),
                            dir.resolve("acme-rules.yaml"),
                            dir.resolve("globex-rules.yaml")));
            try (QueryProcess q = QueryProcess.start(config, InstantSource.system())) {
                // the burst arrives while the rules run (so a slow start cannot age it out of the 8 s window)
                Instant now = Instant.now();
                List<LogRecord> burst = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    burst.add(record("acme", "e-" + i, now.minusMillis(100 + i), "payment provider timed out " + i)
                            .level(Level.ERROR)
                            .build());
                }
                QueryFixture.write(data, burst);
                await().atMost(Duration.ofSeconds(15))
                        .pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> {
                            JsonNode alerts = QueryFixture.JSON.readTree(
                                    get(amUrl + "/api/v2/alerts").body());
                            assertThat(alerts).hasSize(1);
                            JsonNode a = alerts.get(0);
                            assertThat(a.at("/labels/alertname").asText()).isEqualTo("ErrorBurst");
                            assertThat(a.at("/labels/severity").asText()).isEqualTo("page");
                            assertThat(a.at("/labels/service").asText()).isEqualTo("api");
                            assertThat(a.at("/labels/tenant_id").asText()).isEqualTo("acme");
                            assertThat(a.at("/annotations/summary").asText()).isEqualTo("8 payment errors in api");
                            assertThat(a.at("/annotations/lines").asText().split("\n"))
                                    .containsExactly(
                                            "payment provider timed out 0",
                                            "payment provider timed out 1",
                                            "payment provider timed out 2");
                            assertThat(a.at("/status/state").asText()).isEqualTo("active");
                            assertThat(a.get("generatorURL").asText())
                                    .startsWith("http://logpipe.example/#q=")
                                    .contains("level%3A%22ERROR%22");
                        });
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(
                                () -> assertThat(statuses(fromAlertmanager)).contains("firing"));
                assertThat(statuses(fromLogpipe)).contains("firing");
                assertThat(QueryFixture.json(QueryFixture.get(q, "/api/v1/status", QueryFixture.ACME_KEY))
                                .at("/rules/0/state")
                                .asText())
                        .isIn("firing", "inactive"); // inactive once the burst has left the window
                // the burst leaves the 8 s window: the rule's next evaluations resolve the alert everywhere
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> {
                            assertThat(statuses(fromLogpipe)).contains("resolved");
                            assertThat(statuses(fromAlertmanager)).contains("resolved");
                        });
                JsonNode status = QueryFixture.json(QueryFixture.get(q, "/api/v1/status", QueryFixture.ACME_KEY));
                assertThat(status.get("rules")).hasSize(1);
                assertThat(status.at("/rules/0/alert").asText()).isEqualTo("ErrorBurst");
                assertThat(status.at("/rules/0/state").asText()).isEqualTo("inactive");
                assertThat(status.at("/rules/0/last_evaluation").asText()).isNotEmpty();
                assertThat(q.service().ruleStatus())
                        .extracting(s -> s.tenant() + "/" + s.name() + "/" + s.state())
                        .containsExactlyInAnyOrder("acme/ErrorBurst/inactive", "globex/ErrorBurst/inactive");
            }
            for (JsonNode n : concat(fromAlertmanager, fromLogpipe)) {
                for (JsonNode a : n.get("alerts")) {
                    assertThat(a.at("/labels/tenant_id").asText()).isEqualTo("acme");
                }
            }
            List<String> audited = Files.readAllLines(config.auditLog());
            assertThat(audited)
                    .anyMatch(l -> l.contains("\"endpoint\":\"rule\"") && l.contains("\"tenant_id\":\"globex\""));
        } finally {
            am.destroy();
            if (!am.waitFor(10, TimeUnit.SECONDS)) {
                am.destroyForcibly();
            }
            hooks.stop(0);
        }
    }

    private static List<String> statuses(List<JsonNode> bodies) {
        List<String> out = new ArrayList<>();
        bodies.forEach(b -> out.add(b.path("status").asText()));
        return out;
    }

    private static List<JsonNode> concat(List<JsonNode> a, List<JsonNode> b) {
        List<JsonNode> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
