package dev.logpipe.query.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.logpipe.query.config.QueryConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule groups changing at run time (our own seams for the store and the queries; the alerts go to a real webhook over
 * HTTP): a rebuild keeps the other rules' alert states, and a deleted group's firing alerts are resolved.
 */
class RuleSetsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The store: a list in memory. */
    static final class MemoryStore implements RuleStore {
        final List<StoredGroup> groups = new CopyOnWriteArrayList<>();

        @Override
        public List<StoredGroup> all() {
            return List.copyOf(groups);
        }

        @Override
        public void put(StoredGroup g) {
            groups.removeIf(x -> x.tenant().equals(g.tenant()) && x.name().equals(g.name()));
            groups.add(g);
        }

        @Override
        public boolean delete(String tenant, String name) {
            return groups.removeIf(x -> x.tenant().equals(tenant) && x.name().equals(name));
        }
    }

    final List<JsonNode> received = new CopyOnWriteArrayList<>();
    HttpServer hook;
    RuleSets rules;

    @BeforeEach
    void hook() throws IOException {
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/", ex -> {
            received.add(JSON.readTree(ex.getRequestBody().readAllBytes()));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        hook.start();
        QueryConfig.Alerting alerting = new QueryConfig.Alerting(
                Optional.empty(),
                Optional.of(URI.create("http://127.0.0.1:" + hook.getAddress().getPort() + "/hook")),
                "",
                Duration.ofHours(1),
                List.of());
        // every rule's expression answers one series: each alerting rule is always active
        RuleEvaluator.Queries queries = (tenant, rule, at) -> Map.of(new TreeMap<>(Map.of("service", "api")), 1.0);
        rules = new RuleSets(List.of(), new MemoryStore(), alerting, InstantSource.system(), queries);
    }

    @AfterEach
    void stop() {
        rules.close();
        hook.stop(0);
    }

    static StoredGroup group(String name, String hold) {
        return new StoredGroup(
                "acme",
                name,
                "name: " + name + "\ninterval: 1s\nrules:\n  - alert: A_" + name + "\n    expr: vector(1)\n    for: "
                        + hold + "\n");
    }

    List<String> statuses(String alert) {
        return status(received, alert);
    }

    @Test
    void changingOneGroupKeepsTheForClockOfAnotherSoItStillFires() throws Exception {
        rules.start();
        assertThat(rules.put(group("slow", "3s"))).isEqualTo(RuleSets.Stored.NEW);
        // another group changes twice a second: without the states carried over, "slow" would restart its 3 s each time
        long until = System.nanoTime() + Duration.ofSeconds(9).toNanos();
        int i = 0;
        while (System.nanoTime() < until && !statuses("A_slow").contains("firing")) {
            rules.put(group("churn", (i++ % 2) + "s"));
            await().pollDelay(Duration.ofMillis(500)).until(() -> true);
        }
        assertThat(statuses("A_slow"))
                .as("fired while the other group kept changing")
                .contains("firing");
    }

    @Test
    void deletingAGroupResolvesItsFiringAlerts() throws Exception {
        rules.start();
        rules.put(group("gone", "0s"));
        await().atMost(Duration.ofSeconds(10)).until(() -> statuses("A_gone").contains("firing"));
        assertThat(rules.delete("acme", "gone")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> statuses("A_gone").contains("resolved"));
        assertThat(rules.any()).isFalse();
    }

    @Test
    void aGroupAnotherProcessStoresIsEvaluatedHereAtTheNextReloadAndResolvedWhenItDeletesIt(@TempDir Path dir)
            throws Exception {
        List<JsonNode> here = new CopyOnWriteArrayList<>();
        hook.createContext("/here", ex -> {
            here.add(JSON.readTree(ex.getRequestBody().readAllBytes()));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        RuleEvaluator.Queries queries = (tenant, rule, at) -> Map.of(new TreeMap<>(Map.of("service", "api")), 1.0);
        QueryConfig.Alerting toHere = new QueryConfig.Alerting(
                Optional.empty(),
                Optional.of(URI.create("http://127.0.0.1:" + hook.getAddress().getPort() + "/here")),
                "",
                Duration.ofHours(1),
                List.of());
        QueryConfig.Alerting elsewhere =
                new QueryConfig.Alerting(Optional.empty(), Optional.empty(), "", Duration.ofHours(1), List.of());
        // two query processes sharing one data directory's stored groups
        try (RuleSets other =
                        new RuleSets(List.of(), new FileRuleStore(dir), elsewhere, InstantSource.system(), queries);
                RuleSets mine =
                        new RuleSets(List.of(), new FileRuleStore(dir), toHere, InstantSource.system(), queries)) {
            other.start();
            mine.start();
            assertThat(other.put(group("shared", "0s"))).isEqualTo(RuleSets.Stored.NEW);
            assertThat(mine.any())
                    .as("not before this process reads the store again")
                    .isFalse();

            mine.reload(); // what its watcher does every RELOAD_SECONDS
            assertThat(mine.any()).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> status(here, "A_shared").contains("firing"));

            assertThat(other.delete("acme", "shared")).isTrue();
            mine.reload();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> status(here, "A_shared").contains("resolved"));
            assertThat(mine.any()).isFalse();
        }
    }

    static List<String> status(List<JsonNode> bodies, String alert) {
        List<String> out = new ArrayList<>();
        for (JsonNode body : bodies) {
            for (JsonNode a : body.path("alerts")) {
                if (a.at("/labels/alertname").asText().equals(alert)) {
                    out.add(a.path("status").asText());
                }
            }
        }
        return out;
    }

    @Test
    void aTenantKeepsAtMostFiftyStoredGroups() throws Exception {
        rules.start();
        for (int g = 0; g < RuleSets.MAX_GROUPS_PER_TENANT; g++) {
            assertThat(rules.put(group("g" + g, "1h"))).isEqualTo(RuleSets.Stored.NEW);
        }
        assertThat(rules.put(group("one-more", "1h"))).isEqualTo(RuleSets.Stored.TENANT_FULL);
        assertThat(rules.put(group("g0", "2h"))).isEqualTo(RuleSets.Stored.REPLACED);
    }
}
