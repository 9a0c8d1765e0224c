package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tenant isolation as an attacker tries it: every answer holds the caller's records only, whatever it sends. */
class TenantIsolationTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    @TempDir
    Path data;

    void writeBoth() throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rs.add(record("acme", "same-" + i, NOW.minusSeconds(100 + i), "shared words payment failed")
                    .build());
            rs.add(record("globex", "same-" + i, NOW.minusSeconds(100 + i), "shared words payment failed")
                    .build());
            rs.add(record("globex", "g-only-" + i, NOW.minusSeconds(100 + i), "globex confidential")
                    .build());
        }
        QueryFixture.write(data, rs);
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.system())) {
            for (String t : List.of("acme", "globex")) {
                byte[] src = ("{\"reason\":\"SCHEMA_INVALID\",\"tenant_id\":\"" + t + "\",\"raw\":\"broken " + t
                                + "\"}")
                        .getBytes(StandardCharsets.UTF_8);
                store.writeDeadLetters(
                        ShardId.deadLetters(t, LocalDate.parse("2026-12-01")),
                        List.of(new DeadLetterEntry(
                                "dl-" + t,
                                t,
                                "SCHEMA_INVALID",
                                "bad json",
                                "broken " + t,
                                NOW.minusSeconds(50),
                                src,
                                0,
                                src.length)));
            }
            store.commit(Map.of());
        }
    }

    static void onlyAcme(JsonNode hits) {
        assertThat(hits).isNotNull();
        for (JsonNode h : hits) {
            assertThat(h.get("tenant_id").asText()).isEqualTo("acme");
        }
    }

    @Test
    void noQueryTextReachesAnotherTenantsRecords() throws Exception {
        writeBoth();
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            for (String text : List.of(
                    "tenant_id:globex",
                    "*:*",
                    "NOT tenant_id:acme",
                    "globex",
                    "confidential",
                    "tenant_id:globex OR *:*",
                    "record_id:g-only-1",
                    "tenant_id:*",
                    "_source:globex",
                    "fields.tenant_id:globex",
                    "same-1",
                    "record_id:same-1")) {
                HttpResponse<String> r = get(q, "/api/v1/search?limit=1000&from=now-1d&q=" + enc(text), ACME_KEY);
                assertThat(r.statusCode()).as(text).isIn(200, 400);
                if (r.statusCode() == 200) {
                    onlyAcme(json(r).get("hits"));
                    assertThat(r.body()).as(text).doesNotContain("confidential").doesNotContain("\"globex\"");
                }
                HttpResponse<String> h = get(q, "/api/v1/histogram?from=now-1d&q=" + enc(text), ACME_KEY);
                if (h.statusCode() == 200) {
                    long total = json(h).get("total").asLong();
                    assertThat(total).as(text).isLessThanOrEqualTo(20);
                }
                HttpResponse<String> t = get(q, "/api/v1/fields/tenant_id/top?from=now-1d&q=" + enc(text), ACME_KEY);
                if (t.statusCode() == 200) {
                    for (JsonNode v : json(t).get("values")) {
                        assertThat(v.get("value").asText()).isEqualTo("acme");
                    }
                }
            }
            // a record id both tenants use: the caller's own record, never the other one
            JsonNode c = json(get(q, "/api/v1/context/same-3", ACME_KEY));
            assertThat(c.get("record").get("tenant_id").asText()).isEqualTo("acme");
            onlyAcme(c.get("before"));
            onlyAcme(c.get("after"));
            assertThat(get(q, "/api/v1/context/g-only-3", ACME_KEY).statusCode())
                    .isEqualTo(404);
            JsonNode dl = json(get(q, "/api/v1/dead-letters?from=now-1d&q=" + enc("*:*"), ACME_KEY));
            assertThat(dl.get("hits")).hasSize(1);
            assertThat(dl.get("hits").get(0).get("tenant_id").asText()).isEqualTo("acme");
        }
    }

    @Test
    void aTenantNamedInParametersOrHeadersIsRefusedAndAudited() throws Exception {
        writeBoth();
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            for (String path : List.of(
                    "/api/v1/search?tenant=globex",
                    "/api/v1/histogram?tenant_id=globex",
                    "/api/v1/fields?tenant=globex",
                    "/api/v1/dead-letters?tenant=globex",
                    "/api/v1/search?tenant=acme&tenant=globex",
                    "/api/v1/tail?tenant=globex")) {
                HttpResponse<String> r = get(q, path, ACME_KEY);
                assertThat(r.statusCode()).as(path).isEqualTo(403);
                assertThat(r.body()).doesNotContain("confidential");
            }
            for (String header : List.of("X-Tenant", "X-Tenant-Id", "X-Scope-OrgID", "Tenant")) {
                assertThat(get(q, "/api/v1/search", ACME_KEY, header, "globex").statusCode())
                        .as(header)
                        .isEqualTo(403);
            }
            String audit = Files.readString(data.resolve("audit").resolve("query-audit.jsonl"));
            assertThat(audit)
                    .contains("\"reason\":\"foreign_tenant\"")
                    .contains("\"tenant_id\":\"acme\"")
                    .contains("\"credential_id\":\"key:")
                    .doesNotContain(ACME_KEY);
        }
    }

    @Test
    void anotherTenantsCursorOrAnEditedOneIsRefused() throws Exception {
        writeBoth();
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            String path = "/api/v1/search?from=now-1d&limit=2&q=" + enc("payment");
            String globexCursor =
                    json(get(q, path, GLOBEX_KEY)).get("next_cursor").asText();
            HttpResponse<String> r = get(q, path + "&cursor=" + globexCursor, ACME_KEY);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(json(r).get("reason").asText()).isEqualTo("bad_cursor");
            String mine = json(get(q, path, ACME_KEY)).get("next_cursor").asText();
            assertThat(get(q, path + "&cursor=" + mine, ACME_KEY).statusCode()).isEqualTo(200);
            char c = mine.charAt(5);
            String edited = mine.substring(0, 5) + (c == 'A' ? 'B' : 'A') + mine.substring(6);
            assertThat(get(q, path + "&cursor=" + edited, ACME_KEY).statusCode())
                    .isEqualTo(400);
            // bound to the query: the same cursor with another q is refused
            assertThat(get(q, "/api/v1/search?from=now-1d&limit=2&q=shared&cursor=" + mine, ACME_KEY)
                            .statusCode())
                    .isEqualTo(400);
        }
    }

    @Test
    void aTenantAddedLaterSeesOnlyItsOwnRecordsAndOthersNeverSeeIt() throws Exception {
        writeBoth();
        String extra = """
                  - id: initech
                    api_key_sha256: [%s]
                """.formatted(ConfiguredKeys.sha256("initech-key-000000"));
        QueryFixture.write(
                data,
                List.of(record("initech", "same-1", NOW.minusSeconds(30), "initech payment")
                        .build()));
        try (QueryProcess q = QueryProcess.start(
                new QueryConfigLoader()
                        .parse(QueryFixture.yaml(data, "").replace("tenants:\n", "tenants:\n" + extra), "test"),
                InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-1d&limit=1000&q=" + enc("*:*"), "initech-key-000000"));
            assertThat(j.get("hits")).hasSize(1);
            assertThat(j.get("hits").get(0).get("tenant_id").asText()).isEqualTo("initech");
            JsonNode a = json(get(q, "/api/v1/search?from=now-1d&limit=1000&q=" + enc("initech"), ACME_KEY));
            assertThat(a.get("hits")).isEmpty();
        }
    }
}
