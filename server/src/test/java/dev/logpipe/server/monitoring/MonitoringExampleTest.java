package dev.logpipe.server.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline watches itself (issue 27, invariant I10): Debian's real {@code prometheus} scrapes a standalone with
 * the shipped {@code examples/monitoring/prometheus.yml} and evaluates the shipped {@code logpipe-rules.yml} (only the
 * intervals and {@code for} durations shortened, the addresses filled in), and the alert a dead-lettered line raises
 * reaches Debian's real {@code prometheus-alertmanager}: a path that does not go through logpipe.
 */
@Integration
class MonitoringExampleTest {
    static final Path EXAMPLES = Path.of("../examples/monitoring");
    static final String PROMETHEUS = System.getenv().getOrDefault("PROMETHEUS", "/usr/bin/prometheus");
    static final String ALERTMANAGER = System.getenv().getOrDefault("ALERTMANAGER", "/usr/bin/prometheus-alertmanager");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "test-default-key-0123456789";

    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Process start(String name, List<String> command) throws IOException {
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile())
                .start();
    }

    private static JsonNode promQuery(String prometheus, String expr) throws Exception {
        Http.Answer a =
                Http.get(prometheus + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8), null);
        return a.status() == 200 ? JSON.readTree(a.body()).path("data").path("result") : JSON.createArrayNode();
    }

    private static List<String> firing(String alertmanager) throws Exception {
        Http.Answer a = Http.get(alertmanager + "/api/v2/alerts", null);
        List<String> out = new ArrayList<>();
        if (a.status() == 200) {
            for (JsonNode alert : JSON.readTree(a.body())) {
                out.add(alert.path("labels").path("alertname").asText() + "/"
                        + alert.path("labels").path("reason").asText());
            }
        }
        return out;
    }

    @Test
    void aDeadLetteredLineRaisesTheShippedAlertInARealAlertmanagerThroughARealPrometheus() throws Exception {
        assertThat(Path.of(PROMETHEUS))
                .as("Debian's prometheus (apt-get install prometheus; .ci/run does)")
                .isExecutable();
        assertThat(Path.of(ALERTMANAGER))
                .as("Debian's prometheus-alertmanager (apt-get install prometheus-alertmanager; .ci/run does)")
                .isExecutable();
        int amPort = freePort();
        int promPort = freePort();
        Files.writeString(
                dir.resolve("alertmanager.yml"),
                Files.readString(EXAMPLES.resolve("alertmanager.yml")).replace("group_wait: 30s", "group_wait: 0s"));
        // the shipped rules, only waiting less: every `for` is dropped to 0s
        Files.writeString(
                dir.resolve("logpipe-rules.yml"),
                Files.readString(EXAMPLES.resolve("logpipe-rules.yml")).replaceAll("for: \\d+m", "for: 0s"));
        // a recording rule of the tenant: its series reach Prometheus through the same scrape
        Files.writeString(dir.resolve("recording.yml"), """
                groups:
                  - name: recorded
                    interval: 1s
                    rules:
                      - record: service:log_lines:count5m
                        expr: sum by (service) (count_over_time({level="ERROR"}[5m]))
                        labels: {source: logpipe}
                """);
        Files.writeString(dir.resolve("standalone.yaml"), """
                query:
                  alerting:
                    rules:
                      - tenant: default
                        file: %s
                """.formatted(dir.resolve("recording.yml")));
        try (Standalone s = Standalone.start(
                new StandaloneConfigLoader()
                        .load(
                                dir.resolve("standalone.yaml"),
                                new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY),
                Clock.systemUTC())) {
            String target = s.baseUrl().replaceFirst("^http://", "").replaceFirst("/$", "");
            Files.writeString(
                    dir.resolve("prometheus.yml"),
                    Files.readString(EXAMPLES.resolve("prometheus.yml"))
                            .replace("15s", "1s")
                            .replace("127.0.0.1:7070", target)
                            .replace("127.0.0.1:9093", "127.0.0.1:" + amPort)
                            .replace("- logpipe-rules.yml", "- " + dir.resolve("logpipe-rules.yml")));
            Process am = start(
                    "alertmanager",
                    List.of(
                            ALERTMANAGER,
                            "--config.file=" + dir.resolve("alertmanager.yml"),
                            "--storage.path=" + dir.resolve("am-data"),
                            "--web.listen-address=127.0.0.1:" + amPort,
                            "--cluster.listen-address="));
            Process prometheus = start(
                    "prometheus",
                    List.of(
                            PROMETHEUS,
                            "--config.file=" + dir.resolve("prometheus.yml"),
                            "--storage.tsdb.path=" + dir.resolve("prom-data"),
                            "--web.listen-address=127.0.0.1:" + promPort));
            String prom = "http://127.0.0.1:" + promPort;
            String alerts = "http://127.0.0.1:" + amPort;
            try {
                await().atMost(Duration.ofSeconds(60))
                        .alias("prometheus scrapes the standalone (see prometheus.log)")
                        .until(() -> promQuery(prom, "up{job=\"logpipe-standalone\"} == 1")
                                        .size()
                                == 1);
                // the disk and search-lag gauges the shipped rules read are there
                assertThat(promQuery(prom, "disk_free_bytes")).isNotEmpty();
                assertThat(promQuery(prom, "logpipe_indexer_search_behind_seconds"))
                        .isNotEmpty();

                String malformed = "{\"message\":";
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, malformed)
                                .status())
                        .isEqualTo(200);
                // a counter's first sample has nothing to increase from: once Prometheus has it, a second line
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !promQuery(prom, "logpipe_collector_records_dead_lettered_total")
                                .isEmpty());
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, malformed)
                                .status())
                        .isEqualTo(200);

                await().atMost(Duration.ofSeconds(60))
                        .alias("the alert reaches Alertmanager (see prometheus.log, alertmanager.log)")
                        .until(() -> firing(alerts).contains("LogpipeDeadLetters/SCHEMA_INVALID"));
                // the recording rule's series, scraped from the standalone's /metrics, in Prometheus
                assertThat(Http.post(
                                        s.baseUrl() + "/api/v1/logs",
                                        KEY,
                                        "{\"message\":\"card declined\",\"level\":\"ERROR\",\"service\":\"checkout\"}\n")
                                .status())
                        .isEqualTo(200);
                await().atMost(Duration.ofSeconds(60))
                        .alias("the recorded series reaches Prometheus (see prometheus.log)")
                        .until(() -> promQuery(
                                                prom,
                                                "service:log_lines:count5m{service=\"checkout\",tenant_id=\"default\","
                                                        + "source=\"logpipe\"} == 1")
                                        .size()
                                == 1);
                // a healthy standalone raises none of the alerts that page for a broken one
                assertThat(firing(alerts))
                        .noneMatch(a -> a.startsWith("LogpipeDown/")
                                || a.startsWith("LogpipeIngestErrors/")
                                || a.startsWith("LogpipeSearchBehind/")
                                || a.startsWith("LogpipeIndexWritesFailing/"));
            } finally {
                prometheus.destroy();
                am.destroy();
            }
        }
    }
}
