package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.testkit.Integration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials on the standalone's one port over real HTTP: two {@code Authorization} headers (an admin key beside a
 * tenant key got admin before) are refused with 401 on ingest, query, whoami, admin and legal holds; failed
 * authentications from one address share one limit across all of those APIs (legal holds too), answered 429 with
 * Retry-After as JSON, and
 * the query audit names the refused client's address.
 */
@Integration
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CredentialsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "credentials-tenant-key-0123456789";
    private static final String ADMIN = "credentials-admin-key-0123456789";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Failures each test may spend (the first test's ambiguous requests count too). */
    private static final int BURST = 30;

    @TempDir
    static Path dir;

    static Standalone standalone;

    @BeforeAll
    static void start() throws Exception {
        Path config = dir.resolve("standalone.yaml");
        Files.writeString(config, "warm_up: 0s\nauth:\n  failure_burst: " + BURST + "\n  failures_per_minute: 1\n");
        standalone = Standalone.start(
                new StandaloneConfigLoader()
                        .load(config, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        if (standalone != null) {
            standalone.close();
        }
    }

    /** An API and the key it serves. */
    record Api(String method, String path, String body, String key) {}

    static final List<Api> APIS = List.of(
            new Api("GET", "/api/v1/search?q=x", null, KEY),
            new Api("GET", "/api/v1/whoami", null, KEY),
            new Api("GET", "/api/v1/admin/tenants", null, ADMIN),
            new Api("POST", "/api/v1/logs", "{\"message\":\"two keys\"}\n", KEY),
            new Api("GET", "/api/v1/admin/legal-holds", null, ADMIN),
            new Api("GET", "/api/v1/admin/archives", null, ADMIN));

    private static HttpResponse<String> send(Api api, String... authorizations) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(standalone.baseUrl() + api.path()))
                .timeout(Duration.ofSeconds(30))
                .method(
                        api.method(),
                        api.body() == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(api.body()));
        for (String a : authorizations) {
            b.header("Authorization", a);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(1)
    void twoCredentialsAreRefusedAsAmbiguousOnEveryApiWhateverTheirOrder() throws Exception {
        for (Api api : APIS) {
            assertThat(send(api, "Bearer " + api.key()).statusCode())
                    .as(api + " alone")
                    .isEqualTo(200);
            for (String[] both : List.of(
                    new String[] {"Bearer " + ADMIN, "Bearer " + KEY},
                    new String[] {"Bearer " + KEY, "Bearer " + ADMIN},
                    new String[] {"Bearer " + ADMIN + ", Bearer " + KEY})) {
                HttpResponse<String> r = send(api, both);
                assertThat(r.statusCode())
                        .as(api + " " + both.length + " header(s)")
                        .isEqualTo(401);
                assertThat(r.body()).as(api.toString()).contains("ambiguous credentials");
            }
        }
    }

    @Test
    @Order(2)
    void failedAuthenticationsShareOneLimitPerAddressAcrossTheApisAndAre429AsJson() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 2 * BURST; i++) {
            statuses.add(send(APIS.get(i % APIS.size()), "Bearer wrong-key-" + i + "-0123456789")
                    .statusCode());
        }
        assertThat(statuses).contains(401).endsWith(429, 429, 429, 429);
        int first429 = statuses.indexOf(429);
        assertThat(statuses.subList(first429, statuses.size())).containsOnly(429);
        assertThat(first429)
                .as("the 30 of the burst less the first test's ambiguous requests")
                .isLessThan(BURST);
        for (Api api : APIS) {
            HttpResponse<String> r = send(api, "Bearer still-wrong-0123456789");
            assertThat(r.statusCode()).as(api.toString()).isEqualTo(429);
            assertThat(r.headers().firstValue("Retry-After"))
                    .as(api.toString())
                    .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.toString()).as(api.toString()).contains("too many failed authentications");
        }
        // a valid key from the same address is served
        for (Api api : APIS) {
            assertThat(send(api, "Bearer " + api.key()).statusCode())
                    .as(api.toString())
                    .isEqualTo(200);
        }
        String metrics = HTTP.send(
                        HttpRequest.newBuilder(URI.create(standalone.baseUrl() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics).contains("logpipe_auth_failures_total{outcome=\"throttled\"}");
        assertThat(metrics.split("# TYPE logpipe_auth_failures_total", -1))
                .as("registered once")
                .hasSize(2);

        List<JsonNode> audit = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("data/audit/query-audit.jsonl"))) {
            audit.add(JSON.readTree(l));
        }
        assertThat(audit)
                .filteredOn(n -> n.path("reason").asText().equals("auth_failures"))
                .isNotEmpty()
                .allSatisfy(n -> {
                    assertThat(n.path("client").asText()).isEqualTo("127.0.0.1");
                    assertThat(n.path("status").asInt()).isEqualTo(429);
                });
        assertThat(audit)
                .filteredOn(n -> n.path("reason").asText().equals("ambiguous_credentials"))
                .hasSize(3);
    }
}
