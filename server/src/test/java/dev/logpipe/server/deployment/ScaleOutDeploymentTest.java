package dev.logpipe.server.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.BrokerMain;
import dev.logpipe.opensearch.node.OpenSearchProcess;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.Integration;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * docs/deployment.md#scale-out-on-opensearch for real: a broker, a real OpenSearch node, a collector, two indexers of
 * one consumer group and two query services ({@code logpipe broker|collector|indexer|query}), started from copies of
 * examples/scale-out/*.yaml in which only addresses, hosts, directories and the cluster's credentials are replaced
 * (each replacement must match). Records ingested through the collector for two tenants are found by both query
 * services with the same answers; a cursor one issued is accepted by the other (they share {@code cursor.secret_file});
 * the second tenant's records never appear in the first's answers, and its key cannot use the first's cursor.
 */
@Integration
class ScaleOutDeploymentTest {
    static final Path EXAMPLES = Path.of("../examples/scale-out");
    static final String ACME = "acme-key-change-me";
    static final String GLOBEX = "globex-key-change-me";
    static final String BOOTSTRAP = "kafka-1:9092,kafka-2:9092,kafka-3:9092";
    static final String HOSTS = "[\"https://os-1:9200\", \"https://os-2:9200\", \"https://os-3:9200\"]";
    static final String CREDENTIALS = "  username: logpipe\n  password_env: LOGPIPE_OPENSEARCH_PASSWORD\n"
            + "  ca_file: /etc/logpipe/opensearch-ca.pem\n";
    static final Pattern READY = Pattern.compile(" ready listen=(?:http://)?(127\\.0\\.0\\.1:\\d+)");
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<AutoCloseable> children = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : children) {
            c.close();
        }
    }

    @Test
    void twoIndexersAndTwoQueryServicesOnOneClusterServeTheSameAnswersAndEachOthersCursors() throws Exception {
        ChildJvm broker = role(
                "broker",
                "broker",
                "--port",
                "0",
                "--data",
                dir.resolve("broker").toString(),
                "--parent-pid",
                Long.toString(ProcessHandle.current().pid()));
        OpenSearchProcess opensearch = OpenSearchProcess.start(
                dir.resolve("opensearch"),
                OpenSearchProcess.classPathOfThisBuild(),
                List.of("-Xms384m", "-Xmx384m", "-XX:+UseSerialGC"),
                Duration.ofMinutes(3));
        children.add(opensearch);
        await().atMost(WAIT).until(() -> broker.stdout().contains(BrokerMain.READY_PREFIX) || !broker.isAlive());
        assertThat(broker.isAlive()).as(broker.stderr()).isTrue();
        String bootstrap = broker.stdout()
                .substring(broker.stdout().indexOf(BrokerMain.READY_PREFIX) + BrokerMain.READY_PREFIX.length())
                .trim();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(
                            new NewTopic("logpipe.records", 4, (short) 1),
                            new NewTopic("logpipe.dead-letter", 1, (short) 1)))
                    .all()
                    .get();
        }
        String hosts = "[\"" + opensearch.base() + "\"]";
        Path collectorYaml = config(
                "collector.yaml",
                "collector.yaml",
                Map.of("listen: 0.0.0.0:8080", "listen: 127.0.0.1:0", BOOTSTRAP, bootstrap));
        List<String> indexers = new ArrayList<>();
        List<String> queries = new ArrayList<>();
        ChildJvm collectorJvm = role("collector", "collector", "--config", collectorYaml.toString());
        List<ChildJvm> indexerJvms = new ArrayList<>();
        List<ChildJvm> queryJvms = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            Path indexerYaml = config(
                    "indexer.yaml",
                    "indexer-" + i + ".yaml",
                    ordered(
                            "listen: 0.0.0.0:9300",
                            "listen: 127.0.0.1:0",
                            BOOTSTRAP,
                            bootstrap,
                            "data_dir: /var/lib/logpipe",
                            "data_dir: " + dir.resolve("indexer-" + i),
                            HOSTS,
                            hosts,
                            CREDENTIALS,
                            ""));
            indexerJvms.add(role("indexer-" + i, "indexer", "--config", indexerYaml.toString()));
            Path queryYaml = config(
                    "query.yaml",
                    "query-" + i + ".yaml",
                    ordered(
                            "listen: 0.0.0.0:9400",
                            "listen: 127.0.0.1:0",
                            "data_dir: /var/lib/logpipe",
                            "data_dir: " + dir.resolve("query-" + i),
                            "secret_file: /etc/logpipe/cursor.key",
                            "secret_file: " + dir.resolve("shared/cursor.key"),
                            HOSTS,
                            hosts,
                            CREDENTIALS,
                            ""));
            queryJvms.add(role("query-" + i, "query", "--config", queryYaml.toString()));
        }
        String collector = address(collectorJvm, "collector");
        for (ChildJvm c : indexerJvms) {
            indexers.add(address(c, "indexer"));
        }
        for (ChildJvm c : queryJvms) {
            queries.add(address(c, "query"));
        }
        // one group: the four partitions are spread over both indexers
        await().atMost(WAIT)
                .until(() -> assigned(indexers.get(0)) + assigned(indexers.get(1)) == 4
                        && assigned(indexers.get(0)) > 0
                        && assigned(indexers.get(1)) > 0);

        ingest(collector, ACME, "scaleout acme", 25);
        ingest(collector, GLOBEX, "scaleout globex", 5);
        for (String query : queries) {
            await().atMost(WAIT)
                    .until(() -> ids(search(query, ACME, "scaleout", 100, null)).size() == 25);
            await().atMost(WAIT)
                    .until(() ->
                            ids(search(query, GLOBEX, "scaleout", 100, null)).size() == 5);
        }

        JsonNode one = search(queries.get(0), ACME, "scaleout", 100, null);
        JsonNode two = search(queries.get(1), ACME, "scaleout", 100, null);
        assertThat(ids(two)).as("the same answer from either query service").isEqualTo(ids(one));
        assertThat(tenants(one)).containsOnly("acme");
        assertThat(tenants(search(queries.get(1), GLOBEX, "scaleout", 100, null)))
                .containsOnly("globex");
        assertThat(ids(search(queries.get(0), ACME, "globex", 100, null)))
                .as("another tenant's records never in acme's answers")
                .isEmpty();

        JsonNode first = search(queries.get(0), ACME, "scaleout", 10, null);
        String cursor = first.path("next_cursor").asText();
        assertThat(cursor).isNotEmpty();
        List<String> secondHere = ids(search(queries.get(0), ACME, "scaleout", 10, cursor));
        List<String> secondThere = ids(search(queries.get(1), ACME, "scaleout", 10, cursor));
        assertThat(secondThere)
                .as("the other query service accepts the cursor and answers the same page")
                .hasSize(10)
                .isEqualTo(secondHere)
                .doesNotContainAnyElementsOf(ids(first));
        Http.Answer stolen = Http.get(url(queries.get(1), "scaleout", 10, cursor), GLOBEX);
        assertThat(stolen.status()).as(stolen.body()).isEqualTo(400);
        assertThat(stolen.body()).contains("bad_cursor");
    }

    private static Map<String, String> ordered(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    private ChildJvm role(String name, String... args) {
        ChildJvm c = ChildJvm.start(
                dir, name, "dev.logpipe.server.cli.LogpipeCommand", List.of("-Xmx256m", "-Xss1m"), List.of(args));
        children.add(c);
        return c;
    }

    /** A copy of the example with each replacement applied exactly where the example has it. */
    private Path config(String file, String copyName, Map<String, String> replacements) throws Exception {
        String text = Files.readString(EXAMPLES.resolve(file));
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertThat(text)
                    .as("examples/scale-out/%s still has %s", file, r.getKey())
                    .contains(r.getKey());
            text = text.replace(r.getKey(), r.getValue());
        }
        Path copy = dir.resolve("etc").resolve(copyName);
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, text);
        return copy;
    }

    private static String address(ChildJvm c, String role) {
        Matcher m = READY.matcher(c.awaitStderr(role + " ready listen=", WAIT));
        assertThat(m.find()).as("%s ready line in %s", role, c.stderr()).isTrue();
        return "http://" + m.group(1);
    }

    private static int assigned(String indexer) {
        try {
            int n = 0;
            for (var it = JSON.readTree(
                                    Http.get(indexer + "/api/v1/status", null).body())
                            .path("partitions")
                            .fieldNames();
                    it.hasNext(); ) {
                if (it.next().startsWith("logpipe.records-")) {
                    n++;
                }
            }
            return n;
        } catch (Exception e) {
            return -1;
        }
    }

    private static void ingest(String collector, String key, String message, int n) throws Exception {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < n; i++) {
            body.append(JSON.writeValueAsString(Map.of("message", message + " " + i, "level", "INFO")))
                    .append('\n');
        }
        Http.Answer a = Http.post(collector + "/api/v1/logs", key, body.toString());
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(JSON.readTree(a.body()).path("stage").asText()).isEqualTo("DURABLE_IN_BROKER");
    }

    private static String url(String query, String q, int limit, String cursor) {
        return query + "/api/v1/search?from=now-1h&limit=" + limit + "&q="
                + URLEncoder.encode(q, StandardCharsets.UTF_8)
                + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
    }

    private static JsonNode search(String query, String key, String q, int limit, String cursor) throws Exception {
        Http.Answer a = Http.get(url(query, q, limit, cursor), key);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return JSON.readTree(a.body());
    }

    private static List<String> ids(JsonNode answer) {
        List<String> out = new ArrayList<>();
        answer.path("hits").forEach(h -> out.add(h.path("record_id").asText()));
        return out;
    }

    private static List<String> tenants(JsonNode answer) {
        List<String> out = new ArrayList<>();
        answer.path("hits").forEach(h -> out.add(h.path("tenant_id").asText()));
        return out;
    }
}
