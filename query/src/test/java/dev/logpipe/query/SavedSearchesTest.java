package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/v1/saved-searches}: a tenant's saved searches over real HTTP, kept in the data directory. */
class SavedSearchesTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final String PATH = "/api/v1/saved-searches";

    @TempDir
    Path data;

    QueryProcess q;

    void start() throws Exception {
        q = QueryFixture.start(data, "", InstantSource.fixed(NOW));
    }

    @AfterEach
    void stop() throws Exception {
        if (q != null) {
            q.close();
        }
    }

    HttpResponse<String> save(String key, String name, String state) throws Exception {
        return send(q, "POST", PATH, key, "{\"name\":\"" + name + "\",\"state\":\"" + state + "\"}");
    }

    @Test
    void aSavedSearchIsListedOpenedReplacedAndDeletedAndSurvivesARestart() throws Exception {
        start();
        HttpResponse<String> created = save(ACME_KEY, "Checkout errors", "#q=level%3AERROR&range=now-1h");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode s = json(created);
        String id = s.get("id").asText();
        assertThat(id).matches("[a-z2-7]{16}");
        assertThat(s.get("state").asText()).isEqualTo("q=level%3AERROR&range=now-1h");
        assertThat(s.get("created").asText()).isEqualTo(NOW.toString());
        assertThat(s.get("by").asText()).isNotBlank();
        assertThat(save(ACME_KEY, "a first", "q=x").statusCode()).isEqualTo(201);

        JsonNode list = json(get(q, PATH, ACME_KEY));
        assertThat(list.get("saved_searches").findValuesAsText("name")).containsExactly("a first", "Checkout errors");
        assertThat(list.get("max").asInt()).isEqualTo(100);

        HttpResponse<String> replaced =
                send(q, "PUT", PATH + "/" + id, ACME_KEY, "{\"name\":\"Checkout 5xx\",\"state\":\"q=status%3A502\"}");
        assertThat(replaced.statusCode()).isEqualTo(200);

        q.close();
        start();
        JsonNode one = json(get(q, PATH + "/" + id, ACME_KEY));
        assertThat(one.get("name").asText()).isEqualTo("Checkout 5xx");
        assertThat(one.get("state").asText()).isEqualTo("q=status%3A502");

        assertThat(send(q, "DELETE", PATH + "/" + id, ACME_KEY, null).statusCode())
                .isEqualTo(200);
        assertThat(get(q, PATH + "/" + id, ACME_KEY).statusCode()).isEqualTo(404);
        assertThat(send(q, "DELETE", PATH + "/" + id, ACME_KEY, null).statusCode())
                .isEqualTo(404);
        assertThat(json(get(q, PATH, ACME_KEY)).get("saved_searches").findValuesAsText("name"))
                .containsExactly("a first");
    }

    @Test
    void anotherTenantsKeyNeverReachesASavedSearch() throws Exception {
        start();
        String id = json(save(ACME_KEY, "acme only", "q=secret")).get("id").asText();

        assertThat(json(get(q, PATH, GLOBEX_KEY)).get("saved_searches")).isEmpty();
        HttpResponse<String> peek = get(q, PATH + "/" + id, GLOBEX_KEY);
        assertThat(peek.statusCode()).isEqualTo(404);
        assertThat(peek.body()).doesNotContain("secret").doesNotContain("acme");
        assertThat(send(q, "PUT", PATH + "/" + id, GLOBEX_KEY, "{\"name\":\"mine\",\"state\":\"q=x\"}")
                        .statusCode())
                .isEqualTo(404);
        assertThat(send(q, "DELETE", PATH + "/" + id, GLOBEX_KEY, null).statusCode())
                .isEqualTo(404);
        assertThat(get(q, PATH, GLOBEX_KEY, "X-Scope-OrgID", "acme").statusCode())
                .isEqualTo(403);
        assertThat(get(q, PATH + "/" + id, null).statusCode()).isEqualTo(401);
        // the same name in another tenant is that tenant's own
        assertThat(save(GLOBEX_KEY, "acme only", "q=y").statusCode()).isEqualTo(201);

        JsonNode still = json(get(q, PATH + "/" + id, ACME_KEY));
        assertThat(still.get("name").asText()).isEqualTo("acme only");
        assertThat(still.get("state").asText()).isEqualTo("q=secret");
    }

    @Test
    void badRequestsAreRefusedNamingWhatIsWrong() throws Exception {
        start();
        assertThat(refusal(send(q, "POST", PATH, ACME_KEY, "{\"state\":\"q=x\"}"), 400))
                .startsWith("name:");
        assertThat(refusal(send(q, "POST", PATH, ACME_KEY, "{\"name\":\" \",\"state\":\"q=x\"}"), 400))
                .startsWith("name:");
        assertThat(refusal(send(q, "POST", PATH, ACME_KEY, "{\"name\":\"n\",\"state\":\"q\",\"owner\":\"x\"}"), 400))
                .startsWith("owner: unknown key");
        assertThat(refusal(send(q, "POST", PATH, ACME_KEY, "not json"), 400)).contains("not JSON");
        assertThat(refusal(save(ACME_KEY, "n", "q=" + "x".repeat(9000)), 400)).startsWith("state:");
        assertThat(refusal(save(ACME_KEY, "n", "x".repeat(20_000)), 413)).contains("16384 bytes");
        assertThat(refusal(save(ACME_KEY, "x".repeat(101), "q=x"), 400)).startsWith("name:");
        assertThat(refusal(send(q, "PATCH", PATH, ACME_KEY, "{}"), 405)).contains("GET, POST, PUT and DELETE");
        assertThat(refusal(send(q, "POST", PATH + "/abcdefghijklmnop", ACME_KEY, "{}"), 405))
                .contains("PUT");

        String id = json(save(ACME_KEY, "Errors", "q=level%3AERROR")).get("id").asText();
        HttpResponse<String> dup = save(ACME_KEY, "errors", "q=other");
        assertThat(refusal(dup, 409)).contains("already named \"Errors\"");
        assertThat(json(dup).get("id").asText()).isEqualTo(id);
        for (String badId : List.of("ABCDEFGHIJKLMNOP", "abc", "..%2F..%2Fx", "abcdefghijklmno1")) {
            assertThat(get(q, PATH + "/" + badId, ACME_KEY).statusCode())
                    .as(badId)
                    .isIn(400, 404);
        }
        assertThat(json(get(q, PATH, ACME_KEY)).get("saved_searches")).hasSize(1);
    }

    @Test
    void aTenantKeepsAtMostAHundredAndTheCapIsItsOwn() throws Exception {
        start();
        for (int i = 0; i < 100; i++) {
            assertThat(save(ACME_KEY, "s" + i, "q=" + i).statusCode()).isEqualTo(201);
        }
        assertThat(refusal(save(ACME_KEY, "one more", "q=x"), 409)).contains("100 saved searches");
        assertThat(save(GLOBEX_KEY, "globex is not full", "q=x").statusCode()).isEqualTo(201);
        assertThat(json(get(q, PATH, ACME_KEY)).get("saved_searches")).hasSize(100);
    }

    @Test
    void aBurstOfParallelSavesNeverPassesTheCapNorDuplicatesAName() throws Exception {
        start();
        for (int i = 0; i < 95; i++) {
            assertThat(save(ACME_KEY, "s" + i, "q=" + i).statusCode()).isEqualTo(201);
        }
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                String name = "burst" + (i % 12); // each name asked twice at once
                answers.add(pool.submit(() -> save(ACME_KEY, name, "q=x").statusCode()));
            }
            int created = 0;
            for (var a : answers) {
                int status = a.get();
                assertThat(status).isIn(201, 409);
                created += status == 201 ? 1 : 0;
            }
            assertThat(created).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
        JsonNode all = json(get(q, PATH, ACME_KEY)).get("saved_searches");
        assertThat(all).hasSize(100);
        assertThat(all.findValuesAsText("name")).doesNotHaveDuplicates();
    }

    @Test
    void aCorruptFileIsAnErrorNotASearchSilentlyLeftOut() throws Exception {
        start();
        String id = json(save(ACME_KEY, "kept", "q=x")).get("id").asText();
        Path file;
        try (Stream<Path> files = Files.walk(data.resolve("saved-searches"))) {
            file = files.filter(p -> p.getFileName().toString().equals(id + ".json"))
                    .findFirst()
                    .orElseThrow();
        }
        Files.writeString(file, "{\"id\":");

        assertThat(get(q, PATH, ACME_KEY).statusCode()).isEqualTo(500);
        assertThat(get(q, PATH + "/" + id, ACME_KEY).statusCode()).isEqualTo(500);
        assertThat(json(get(q, PATH, GLOBEX_KEY)).get("saved_searches")).isEmpty();
    }

    @Test
    void everyCallIsAuditedWithItsActionAndId() throws Exception {
        start();
        String id = json(save(ACME_KEY, "audited", "q=x")).get("id").asText();
        get(q, PATH + "/" + id, GLOBEX_KEY);
        q.close();
        q = null;
        List<JsonNode> lines = new ArrayList<>();
        for (String l : Files.readAllLines(data.resolve("audit").resolve("query-audit.jsonl"))) {
            lines.add(QueryFixture.JSON.readTree(l));
        }
        assertThat(lines).extracting(n -> n.path("endpoint").asText()).containsOnly("saved-searches");
        assertThat(lines).extracting(n -> n.path("action").asText()).containsExactly("POST", "GET");
        assertThat(lines).extracting(n -> n.path("saved_search").asText()).containsExactly(id, id);
        assertThat(lines).extracting(n -> n.path("status").asInt()).containsExactly(201, 404);
        assertThat(lines).extracting(n -> n.path("tenant_id").asText()).containsExactly("acme", "globex");
    }

    private static String refusal(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return json(r).path("error").asText();
    }
}
