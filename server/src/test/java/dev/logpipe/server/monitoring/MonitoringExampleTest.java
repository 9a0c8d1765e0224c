package dev.logpipe.server.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.server.standalone.Http;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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
    private static final String KEY = "test-default-key-0123456789";
    private static final String ADMIN = "test-admin-key-0123456789";
    private static final String SCRAPE = "test-scrape-key-0123456789";

    @TempDir
    Path dir;

    @Test
    void aDeadLetteredLineRaisesTheShippedAlertInARealAlertmanagerThroughARealPrometheus() throws Exception {
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
                  admin:
                    scrape_key_sha256: [%s]
                  alerting:
                    rules:
                      - tenant: default
                        file: %s
                """.formatted(
                        dev.logpipe.query.auth.ConfiguredKeys.sha256(SCRAPE), dir.resolve("recording.yml")));
        try (Standalone s = Standalone.start(
                new StandaloneConfigLoader()
                        .load(
                                dir.resolve("standalone.yaml"),
                                new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC())) {
            String target = s.baseUrl().replaceFirst("^http://", "").replaceFirst("/$", "");
            Path scrapeKey = dir.resolve("scrape.key");
            Files.writeString(scrapeKey, SCRAPE);
            try (PrometheusStack stack = PrometheusStack.start(
                    dir,
                    Map.of(
                            "127.0.0.1:7070",
                            target,
                            "credentials_file: /etc/logpipe/scrape.key\n    static_configs:\n      - targets: []",
                            "credentials_file: " + scrapeKey + "\n    static_configs:\n      - targets: [\"" + target
                                    + "\"]"),
                    List.of("logpipe-standalone", "logpipe-recorded"))) {
                // the disk and search-lag gauges the shipped rules read are there
                assertThat(stack.query("disk_free_bytes")).isNotEmpty();
                assertThat(stack.query("logpipe_indexer_search_behind_seconds")).isNotEmpty();

                String malformed = "{\"message\":";
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, malformed)
                                .status())
                        .isEqualTo(200);
                // a counter's first sample has nothing to increase from: once Prometheus has it, a second line
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !stack.query("logpipe_collector_records_dead_lettered_total")
                                .isEmpty());
                assertThat(Http.post(s.baseUrl() + "/api/v1/logs", KEY, malformed)
                                .status())
                        .isEqualTo(200);

                await().atMost(Duration.ofSeconds(60))
                        .alias("the alert reaches Alertmanager (see prometheus.log, alertmanager.log)")
                        .until(() -> stack.alerts("reason").contains("LogpipeDeadLetters/SCHEMA_INVALID"));
                // the recording rule's series, scraped with the scrape key from the standalone's /metrics/rules
                assertThat(Http.post(
                                        s.baseUrl() + "/api/v1/logs",
                                        KEY,
                                        "{\"message\":\"card declined\",\"level\":\"ERROR\",\"service\":\"checkout\"}\n")
                                .status())
                        .isEqualTo(200);
                await().atMost(Duration.ofSeconds(60))
                        .alias("the recorded series reaches Prometheus (see prometheus.log)")
                        .until(() -> stack.query("service:log_lines:count5m{service=\"checkout\",tenant_id=\"default\","
                                                + "source=\"logpipe\"} == 1")
                                        .size()
                                == 1);
                // never on the open /metrics, nor for a tenant's key: their label values are the tenant's data
                assertThat(Http.get(s.baseUrl() + "/metrics", null).body()).doesNotContain("service:log_lines:");
                assertThat(Http.get(s.baseUrl() + "/metrics/rules", KEY).status())
                        .isEqualTo(403);
                assertThat(Http.get(s.baseUrl() + "/metrics/rules", null).status())
                        .isEqualTo(401);
                assertThat(Http.get(s.baseUrl() + "/api/v1/admin/tenants", SCRAPE)
                                .status())
                        .as("the scrape key opens nothing else")
                        .isEqualTo(401);
                assertThat(Http.get(s.baseUrl() + "/metrics/rules", ADMIN).status())
                        .as("an admin key still reads the series")
                        .isEqualTo(200);
                // a healthy standalone raises none of the alerts that page for a broken one
                assertThat(stack.alerts("reason"))
                        .noneMatch(a -> a.startsWith("LogpipeDown/")
                                || a.startsWith("LogpipeIngestErrors/")
                                || a.startsWith("LogpipeSearchBehind/")
                                || a.startsWith("LogpipeIndexWritesFailing/"));
            }
        }
    }
}
