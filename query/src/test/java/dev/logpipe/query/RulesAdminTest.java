package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/v1/admin/rules} on the query port: rule groups stored, evaluated, replaced and deleted at run time. */
class RulesAdminTest {
    static final String ADMIN = "rules-admin-key-0123456789";
    static final String PATH = "/api/v1/admin/rules";
    static final String RECORDING = """
            name: recorded
            interval: 1s
            rules:
              - record: service:errors:count1h
                expr: sum by (service) (count_over_time({level="ERROR"}[1h]))
            """;

    @TempDir
    Path data;

    QueryProcess q;

    void start(String extra) throws Exception {
        q = QueryFixture.start(data, extra, InstantSource.system());
    }

    @AfterEach
    void stop() throws Exception {
        if (q != null) {
            q.close();
        }
    }

    static String admin() {
        return "admin:\n  api_key_sha256: [" + ConfiguredKeys.sha256(ADMIN) + "]\n";
    }

    HttpResponse<String> put(String tenant, String group, String body) throws Exception {
        return QueryFixture.send(q, "PUT", PATH + "/" + tenant + "/" + group, ADMIN, body);
    }

    /** The recorded series, behind the admin key. */
    String metrics() throws Exception {
        return QueryFixture.get(q, "/metrics/rules", ADMIN).body();
    }

    void errors() throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < 3; i++) {
            rs.add(record("acme", "e-" + i, now.minusSeconds(60 + i), "payment failed " + i)
                    .level(Level.ERROR)
                    .build());
        }
        rs.add(record("globex", "g-1", now.minusSeconds(60), "globex failed")
                .level(Level.ERROR)
                .build());
        QueryFixture.write(data, rs);
    }

    @Test
    void aScrapeKeyReadsTheRecordedSeriesAndNothingElse() throws Exception {
        String scrape = "prometheus-scrape-key-0001";
        start("admin:\n  api_key_sha256: [" + ConfiguredKeys.sha256(ADMIN) + "]\n  scrape_key_sha256: ["
                + ConfiguredKeys.sha256(scrape) + "]\n");
        errors();
        assertThat(put("acme", "recorded", RECORDING).statusCode()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> QueryFixture.get(q, "/metrics/rules", scrape)
                        .body()
                        .contains("service:errors:count1h{service=\"api\",tenant_id=\"acme\"} 3"));
        assertThat(QueryFixture.get(q, PATH, scrape).statusCode())
                .as("the admin API refuses a scrape key")
                .isEqualTo(401);
        assertThat(QueryFixture.send(q, "DELETE", PATH + "/acme/recorded", scrape, null)
                        .statusCode())
                .isEqualTo(401);
        assertThat(QueryFixture.get(q, PATH, ADMIN).statusCode()).isEqualTo(200);
        q.close();

        start("admin:\n  scrape_key_sha256: [" + ConfiguredKeys.sha256(scrape) + "]\n");
        assertThat(QueryFixture.get(q, "/metrics/rules", scrape).statusCode()).isEqualTo(200);
        assertThat(QueryFixture.get(q, PATH, ADMIN).statusCode())
                .as("no admin key configured: the admin API is off")
                .isEqualTo(403);
        assertThat(QueryFixture.get(q, "/metrics/rules", ADMIN).statusCode()).isEqualTo(401);
    }

    @Test
    void aStoredGroupIsEvaluatedAtOnceSurvivesARestartAndGoesWhenDeleted() throws Exception {
        start(admin());
        errors();
        HttpResponse<String> stored = put("acme", "recorded", RECORDING);
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        assertThat(json(stored).at("/rules/0/record").asText()).isEqualTo("service:errors:count1h");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> metrics().contains("service:errors:count1h{service=\"api\",tenant_id=\"acme\"} 3"));
        assertThat(metrics()).doesNotContain("tenant_id=\"globex\"");
        assertThat(QueryFixture.get(q, "/metrics", null).body())
                .as("the open /metrics never shows a tenant's recorded series")
                .doesNotContain("service:errors:");
        assertThat(QueryFixture.get(q, "/metrics/rules", ACME_KEY).statusCode()).isEqualTo(401);
        assertThat(QueryFixture.get(q, "/metrics/rules", null).statusCode()).isEqualTo(401);
        var listed = json(QueryFixture.get(q, PATH, ADMIN));
        assertThat(listed.at("/groups/0/tenant").asText()).isEqualTo("acme");
        assertThat(listed.at("/groups/0/source").asText()).isEqualTo("api");
        assertThat(json(QueryFixture.get(q, PATH + "/acme/recorded", ADMIN))
                        .get("yaml")
                        .asText())
                .isEqualTo(RECORDING);
        assertThat(json(QueryFixture.get(q, "/api/v1/status", ACME_KEY))
                        .at("/rules/0/record")
                        .asText())
                .isEqualTo("service:errors:count1h");
        assertThat(json(QueryFixture.get(q, "/api/v1/status", GLOBEX_KEY)).path("rules"))
                .as("another tenant's status lists none of acme's rules")
                .isEmpty();

        q.close();
        start(admin());
        await().atMost(Duration.ofSeconds(20)).until(() -> metrics().contains("service:errors:count1h{"));

        HttpResponse<String> replaced = put("acme", "recorded", RECORDING.replace("count1h", "count2h"));
        assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> metrics().contains("service:errors:count2h{"));
        assertThat(metrics()).doesNotContain("service:errors:count1h");

        assertThat(QueryFixture.send(q, "DELETE", PATH + "/acme/recorded", ADMIN, null)
                        .statusCode())
                .isEqualTo(200);
        assertThat(metrics()).doesNotContain("service:errors:");
        assertThat(QueryFixture.send(q, "DELETE", PATH + "/acme/recorded", ADMIN, null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(json(QueryFixture.get(q, PATH, ADMIN)).get("groups")).isEmpty();
    }

    @Test
    void onlyAnAdminKeyManagesRulesAndWithoutOneConfiguredTheApiIsOff() throws Exception {
        start("");
        assertThat(QueryFixture.get(q, PATH, ADMIN).statusCode()).isEqualTo(403);
        q.close();
        start(admin());
        assertThat(QueryFixture.get(q, PATH, null).statusCode()).isEqualTo(401);
        assertThat(QueryFixture.get(q, PATH, ACME_KEY).statusCode()).isEqualTo(401);
        assertThat(QueryFixture.send(q, "PUT", PATH + "/acme/recorded", ACME_KEY, RECORDING)
                        .statusCode())
                .isEqualTo(401);
        assertThat(QueryFixture.get(q, PATH, ADMIN).statusCode()).isEqualTo(200);
    }

    @Test
    void badGroupsAreRefusedNamingTheKeyPath() throws Exception {
        Path file = data.resolve("acme-rules.yaml");
        Files.createDirectories(data);
        Files.writeString(
                file, "groups:\n  - name: fromfile\n    rules:\n      - record: a:b\n        expr: vector(1)\n");
        start(admin() + "alerting:\n  rules:\n    - tenant: acme\n      file: " + file + "\n");
        assertThat(error(put("acme", "recorded", RECORDING.replace("count_over_time", "count_over_tim")), 400))
                .startsWith("body: rules[0].expr:");
        assertThat(error(put("acme", "other", RECORDING), 400))
                .isEqualTo("body: name: must be the group of the path, \"other\", was \"recorded\"");
        assertThat(error(put("acme", "recorded", "name: recorded\nrules: []\n"), 400))
                .contains("1 to 100 rules");
        assertThat(error(put("acme", "recorded", "name: recorded\nrules:\n  - alert: A\n    expr: vector(1)\n"), 400))
                .contains("alerting rules need alerting.alertmanager_url");
        assertThat(error(put("initech", "recorded", RECORDING), 404)).contains("no tenant initech");
        assertThat(error(put("acme", "fromfile", RECORDING.replace("recorded", "fromfile")), 409))
                .contains("comes from a rule file");
        assertThat(error(put("acme", "recorded", "#".repeat(70_000)), 413)).contains("65536 bytes");
        assertThat(error(QueryFixture.send(q, "POST", PATH + "/acme/recorded", ADMIN, RECORDING), 405))
                .contains("GET, PUT and DELETE");
        var listed = json(QueryFixture.get(q, PATH + "/acme", ADMIN)).get("groups");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("source").asText()).isEqualTo("file");
    }

    private static String error(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return json(r).path("error").asText();
    }
}
