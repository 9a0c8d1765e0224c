package dev.logpipe.server.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.standalone.Http;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Debian's real {@code prometheus} and {@code prometheus-alertmanager} ({@code .ci/run} installs them) started from the
 * shipped {@code examples/monitoring/} files: only the intervals shortened to 1 s, every {@code for} to 0 s, Alertmanager's
 * {@code group_wait} to 0 s, and the scrape targets filled in by the caller (each replacement must match the example,
 * so a changed example fails the test). Logs: {@code prometheus.log}, {@code alertmanager.log} in the test's directory.
 */
public final class PrometheusStack implements AutoCloseable {
    static final Path EXAMPLES = Path.of("../examples/monitoring");
    static final String PROMETHEUS = System.getenv().getOrDefault("PROMETHEUS", "/usr/bin/prometheus");
    static final String ALERTMANAGER = System.getenv().getOrDefault("ALERTMANAGER", "/usr/bin/prometheus-alertmanager");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process prometheus;
    private final Process alertmanager;
    private final String prometheusUrl;
    private final String alertmanagerUrl;

    private PrometheusStack(Process prometheus, Process alertmanager, String prometheusUrl, String alertmanagerUrl) {
        this.prometheus = prometheus;
        this.alertmanager = alertmanager;
        this.prometheusUrl = prometheusUrl;
        this.alertmanagerUrl = alertmanagerUrl;
    }

    /**
     * Starts both in {@code dir}; {@code targets} replaces text of the shipped prometheus.yml (a scrape job's
     * {@code targets: []} or the standalone's {@code 127.0.0.1:7070}) and waits until every job named in {@code
     * jobsUp} is scraped.
     */
    public static PrometheusStack start(Path dir, Map<String, String> targets, List<String> jobsUp) throws Exception {
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
        Files.writeString(
                dir.resolve("logpipe-rules.yml"),
                Files.readString(EXAMPLES.resolve("logpipe-rules.yml")).replaceAll("for: \\d+m", "for: 0s"));
        String prom = Files.readString(EXAMPLES.resolve("prometheus.yml"))
                .replace("15s", "1s")
                .replace("127.0.0.1:9093", "127.0.0.1:" + amPort)
                .replace("- logpipe-rules.yml", "- " + dir.resolve("logpipe-rules.yml"));
        for (Map.Entry<String, String> t : targets.entrySet()) {
            assertThat(prom)
                    .as("examples/monitoring/prometheus.yml still has %s", t.getKey())
                    .contains(t.getKey());
            prom = prom.replaceFirst(
                    java.util.regex.Pattern.quote(t.getKey()), java.util.regex.Matcher.quoteReplacement(t.getValue()));
        }
        Files.writeString(dir.resolve("prometheus.yml"), prom);
        Process am = start(
                dir,
                "alertmanager",
                List.of(
                        ALERTMANAGER,
                        "--config.file=" + dir.resolve("alertmanager.yml"),
                        "--storage.path=" + dir.resolve("am-data"),
                        "--web.listen-address=127.0.0.1:" + amPort,
                        "--cluster.listen-address="));
        Process p = start(
                dir,
                "prometheus",
                List.of(
                        PROMETHEUS,
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("prom-data"),
                        "--web.listen-address=127.0.0.1:" + promPort));
        PrometheusStack s = new PrometheusStack(p, am, "http://127.0.0.1:" + promPort, "http://127.0.0.1:" + amPort);
        try {
            for (String job : jobsUp) {
                await().atMost(Duration.ofSeconds(60))
                        .alias("prometheus scrapes " + job + " (see prometheus.log)")
                        .until(() -> !s.query("up{job=\"" + job + "\"} == 1").isEmpty());
            }
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Process start(Path dir, String name, List<String> command) throws IOException {
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile())
                .start();
    }

    /** The instant vector of a PromQL expression (empty while Prometheus cannot answer, or is not up yet). */
    public JsonNode query(String expr) throws Exception {
        Http.Answer a;
        try {
            a = Http.get(
                    prometheusUrl + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8), null);
        } catch (java.net.ConnectException e) {
            return JSON.createArrayNode();
        }
        return a.status() == 200 ? JSON.readTree(a.body()).path("data").path("result") : JSON.createArrayNode();
    }

    /** The alerts Alertmanager holds, each as {@code alertname/label}, the label named by the caller (e.g. reason). */
    public List<String> alerts(String label) throws Exception {
        List<String> out = new ArrayList<>();
        Http.Answer a;
        try {
            a = Http.get(alertmanagerUrl + "/api/v2/alerts", null);
        } catch (java.net.ConnectException e) {
            return out;
        }
        if (a.status() == 200) {
            for (JsonNode alert : JSON.readTree(a.body())) {
                out.add(alert.path("labels").path("alertname").asText() + "/"
                        + alert.path("labels").path(label).asText());
            }
        }
        return out;
    }

    @Override
    public void close() {
        prometheus.destroy();
        alertmanager.destroy();
    }
}
