package dev.logpipe.server.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.BrokerMain;
import dev.logpipe.server.monitoring.PrometheusStack;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.Integration;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/deployment.md for real: the broker, a collector, the indexer and the query service as four processes
 * ({@code logpipe broker|collector|indexer|query}), started from copies of examples/deployment/*.yaml in which only
 * the addresses and the data directory are replaced (each replacement must match, so a changed example fails
 * here). One broker cannot hold replication factor 3, so the test creates the two topics first with one replica
 * (the collector uses existing topics as they are); every other setting is the example's. Ingest through the
 * collector, find through the query service, SIGTERM the indexer, ingest while it is down, restart it: both
 * records are found. Debian's real Prometheus and Alertmanager run the shipped examples/monitoring/ setup beside
 * them: the indexer's absence raises LogpipeDown in Alertmanager.
 */
@Integration
class DeploymentTest {
    static final Path EXAMPLES = Path.of("../examples/deployment");
    static final String KEY = "acme-key-change-me"; // the example's tenant key (its comment names it)
    static final String BOOTSTRAP = "kafka-1:9092,kafka-2:9092,kafka-3:9092";
    static final String DATA = "/srv/logpipe/data";
    static final Pattern READY = Pattern.compile(" ready listen=(?:http://)?(127\\.0\\.0\\.1:\\d+)");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<ChildJvm> children = new ArrayList<>();
    private final List<AutoCloseable> closeLast = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (ChildJvm c : children) {
            c.close();
        }
        for (AutoCloseable c : closeLast) {
            c.close();
        }
    }

    /** A scrape job of the shipped prometheus.yml as it is (no targets), or with one target. */
    private static String job(String name, String... url) {
        String target = url.length == 0 ? "" : "\"" + url[0].replaceFirst("^http://", "") + "\"";
        return "- job_name: " + name + "\n    static_configs:\n      - targets: [" + target + "]";
    }

    private ChildJvm role(String name, List<String> heap, String... args) {
        List<String> flags = new ArrayList<>(heap);
        flags.add("-Xss1m");
        ChildJvm c = ChildJvm.start(dir, name, "dev.logpipe.server.cli.LogpipeCommand", flags, List.of(args));
        children.add(c);
        return c;
    }

    /** A copy of the example with each replacement applied exactly where the example has it. */
    private Path config(String file, Map<String, String> replacements) throws Exception {
        String text = Files.readString(EXAMPLES.resolve(file));
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertThat(text)
                    .as("examples/deployment/%s still has %s", file, r.getKey())
                    .contains(r.getKey());
            text = text.replace(r.getKey(), r.getValue());
        }
        Path copy = dir.resolve("etc").resolve(file);
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, text);
        return copy;
    }

    private static String address(ChildJvm c, String role) {
        Matcher m = READY.matcher(c.awaitStderr(role + " ready listen=", Duration.ofSeconds(60)));
        assertThat(m.find()).as("%s ready line in %s", role, c.stderr()).isTrue();
        return "http://" + m.group(1);
    }

    private static int found(String query, String word) throws Exception {
        Http.Answer a = Http.get(
                query + "/api/v1/search?from=now-1h&q=" + URLEncoder.encode(word, StandardCharsets.UTF_8), KEY);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        JsonNode hits = JSON.readTree(a.body()).path("hits");
        for (JsonNode h : hits) {
            assertThat(h.path("tenant_id").asText()).isEqualTo("acme");
        }
        return hits.size();
    }

    private static void ingest(String collector, String message) throws Exception {
        Http.Answer a = Http.post(
                collector + "/api/v1/logs",
                KEY,
                JSON.writeValueAsString(Map.of("message", message, "level", "ERROR", "service", "checkout")) + "\n");
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(JSON.readTree(a.body()).path("stage").asText()).isEqualTo("DURABLE_IN_BROKER");
    }

    @Test
    void theDeploymentExamplesRunAsSeparateRolesAndAnIndexerRestartLosesNothing() throws Exception {
        ChildJvm broker = role(
                "broker",
                List.of("-Xmx512m"),
                "broker",
                "--port",
                "0",
                "--data",
                dir.resolve("broker").toString(),
                "--parent-pid",
                Long.toString(ProcessHandle.current().pid()));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> broker.stdout().contains(BrokerMain.READY_PREFIX) || !broker.isAlive());
        assertThat(broker.isAlive()).as(broker.stderr()).isTrue();
        String bootstrap = broker.stdout()
                .substring(broker.stdout().indexOf(BrokerMain.READY_PREFIX) + BrokerMain.READY_PREFIX.length())
                .trim();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(
                            new NewTopic("logpipe.records", 12, (short) 1),
                            new NewTopic("logpipe.dead-letter", 12, (short) 1)))
                    .all()
                    .get();
        }
        String data = dir.resolve("data").toString();
        Path collectorYaml =
                config("collector.yaml", Map.of("listen: 0.0.0.0:8080", "listen: 127.0.0.1:0", BOOTSTRAP, bootstrap));
        Path indexerYaml = config(
                "indexer.yaml",
                Map.of("listen: 0.0.0.0:9300", "listen: 127.0.0.1:0", BOOTSTRAP, bootstrap, DATA, data));
        Path queryYaml = config("query.yaml", Map.of("listen: 0.0.0.0:9400", "listen: 127.0.0.1:0", DATA, data));

        List<String> roleHeap = List.of("-Xmx384m");
        ChildJvm collectorJvm = role("collector", roleHeap, "collector", "--config", collectorYaml.toString());
        ChildJvm indexer = role("indexer-1", roleHeap, "indexer", "--config", indexerYaml.toString());
        ChildJvm queryJvm = role("query", roleHeap, "query", "--config", queryYaml.toString());
        String collector = address(collectorJvm, "collector");
        String indexerUrl = address(indexer, "indexer");
        String query = address(queryJvm, "query");
        // the shipped Prometheus setup watches the three roles (a path that does not go through logpipe)
        Path monitoring = dir.resolve("monitoring");
        Files.createDirectories(monitoring);
        PrometheusStack stack = PrometheusStack.start(
                monitoring,
                Map.of(
                        job("logpipe-collector"), job("logpipe-collector", collector),
                        job("logpipe-indexer"), job("logpipe-indexer", indexerUrl),
                        job("logpipe-query"), job("logpipe-query", query)),
                List.of("logpipe-collector", "logpipe-indexer", "logpipe-query"));
        closeLast.add(stack);

        ingest(collector, "deploymarker one: payment declined");
        await().atMost(Duration.ofSeconds(30)).until(() -> found(query, "deploymarker") == 1);
        assertThat(Http.get(query + "/api/v1/search?from=now-1h&q=deploymarker", "not-a-key")
                        .status())
                .isEqualTo(401);

        // SIGTERM the indexer: the query service still serves what was committed; the collector still accepts
        indexer.terminate(Duration.ofSeconds(20));
        assertThat(indexer.stderr()).contains("indexer stopped");
        // and the indexer's absence pages through Prometheus and Alertmanager
        await().atMost(Duration.ofSeconds(60))
                .alias("LogpipeDown for the indexer reaches Alertmanager (see monitoring/*.log)")
                .until(() -> stack.alerts("job").contains("LogpipeDown/logpipe-indexer"));
        assertThat(stack.alerts("job")).doesNotContain("LogpipeDown/logpipe-collector", "LogpipeDown/logpipe-query");
        assertThat(found(query, "deploymarker")).isEqualTo(1);
        ingest(collector, "deploymarker two: written while the indexer was down");
        ChildJvm restarted = role("indexer-2", roleHeap, "indexer", "--config", indexerYaml.toString());
        address(restarted, "indexer");
        await().atMost(Duration.ofSeconds(30)).until(() -> found(query, "deploymarker") == 2);
        ingest(collector, "deploymarker three: after the restart");
        await().atMost(Duration.ofSeconds(30)).until(() -> found(query, "deploymarker") == 3);
        assertThat(found(query, "\"written while the indexer was down\"")).isEqualTo(1);
    }
}
