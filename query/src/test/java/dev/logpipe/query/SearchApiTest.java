package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchApiTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    @TempDir
    Path data;

    QueryProcess q;

    @BeforeEach
    void setUp() throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rs.add(record("acme", "a-" + i, NOW.minusSeconds(60 + i), "order CO-99" + i + " done")
                    .level(i % 10 == 0 ? Level.ERROR : Level.INFO)
                    .field("took_ms", i * 20)
                    .build());
            rs.add(record("globex", "g-" + i, NOW.minusSeconds(60 + i), "globex secret " + i)
                    .build());
        }
        QueryFixture.write(data, rs);
        q = QueryFixture.start(data, "", InstantSource.fixed(NOW));
    }

    @AfterEach
    void tearDown() throws Exception {
        q.close();
    }

    @Test
    void aSearchAnswersTheCallersRecordsNewestFirstWithTheDocumentedShape() throws Exception {
        HttpResponse<String> r = get(q, "/api/v1/search?q=" + enc("level:ERROR") + "&limit=3", ACME_KEY);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode j = json(r);
        assertThat(j.get("hits")).hasSize(3);
        assertThat(j.get("hits").get(0).get("record_id").asText()).isEqualTo("a-0");
        assertThat(j.get("hits").get(1).get("record_id").asText()).isEqualTo("a-10");
        assertThat(j.get("hits").get(0).get("tenant_id").asText()).isEqualTo("acme");
        assertThat(j.has("next_cursor")).isTrue();
        assertThat(j.get("partial").asBoolean()).isFalse();
        assertThat(j.get("total").get("value").asLong()).isEqualTo(5);
        assertThat(j.get("total").get("relation").asText()).isEqualTo("eq");
        assertThat(j.get("shards").get("searched").asInt()).isEqualTo(1);
        assertThat(j.has("took_ms")).isTrue();
        JsonNode next = json(get(
                q,
                "/api/v1/search?q=" + enc("level:ERROR") + "&limit=3&cursor="
                        + j.get("next_cursor").asText(),
                ACME_KEY));
        assertThat(next.get("hits")).hasSize(2);
        assertThat(next.get("hits").get(0).get("record_id").asText()).isEqualTo("a-30");
        assertThat(next.has("next_cursor")).isFalse();
    }

    @Test
    void typedFieldRangesAndTheLogAnalyzerApply() throws Exception {
        JsonNode j = json(get(q, "/api/v1/search?q=" + enc("fields.took_ms:>900"), ACME_KEY));
        assertThat(j.get("total").get("value").asLong()).isEqualTo(4);
        j = json(get(q, "/api/v1/search?q=" + enc("CO-9931"), ACME_KEY));
        assertThat(j.get("hits")).hasSize(1);
        assertThat(j.get("hits").get(0).get("record_id").asText()).isEqualTo("a-31");
    }

    @Test
    void whatPeopleTypeFirstIsAnsweredAndTheAnswerSaysHowItWasRead() throws Exception {
        JsonNode j = json(get(q, "/api/v1/search?q=" + enc("took_ms:>900"), ACME_KEY));
        assertThat(j.get("total").get("value").asLong()).isEqualTo(4);
        assertThat(j.get("resolved_fields").toString()).isEqualTo("{\"took_ms\":\"fields.took_ms\"}");
        assertThat(j.has("warnings")).isFalse();
        j = json(get(q, "/api/v1/search?q=" + enc("tookms:>900"), ACME_KEY));
        assertThat(j.get("hits")).isEmpty();
        assertThat(j.get("warnings").toString())
                .isEqualTo("[\"no field tookms in this range; did you mean fields.took_ms?\"]");
        j = json(get(q, "/api/v1/histogram?q=" + enc("fields.nope:1"), ACME_KEY));
        assertThat(j.get("warnings").toString()).isEqualTo("[\"no field fields.nope in this range\"]");
        j = json(get(q, "/api/v1/search?q=" + enc("level:ERROR"), ACME_KEY));
        assertThat(j.has("resolved_fields")).isFalse();
        assertThat(j.has("warnings")).isFalse();
        for (String text : List.of("level:error", "NOT level:INFO", "-level:INFO", "level:error and took_ms:*")) {
            j = json(get(q, "/api/v1/search?q=" + enc(text), ACME_KEY));
            assertThat(j.get("total").get("value").asLong()).as(text).isEqualTo(5);
        }
        for (String text : List.of("*", "*:*", "took_ms:*", "NOT level:FATAL")) {
            j = json(get(q, "/api/v1/search?q=" + enc(text), ACME_KEY));
            assertThat(j.get("total").get("value").asLong()).as(text).isEqualTo(50);
        }
    }

    @Test
    void anUnparsableQueryIsA400WithThePosition() throws Exception {
        HttpResponse<String> r = get(q, "/api/v1/search?q=" + enc("level:(ERROR"), ACME_KEY);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("position").get("column").asInt()).isPositive();
        assertThat(json(r).get("reason").asText()).isEqualTo("bad_query");
    }

    @Test
    void noKeyIs401AndAnotherTenantNamedIs403() throws Exception {
        assertThat(get(q, "/api/v1/search", null).statusCode()).isEqualTo(401);
        assertThat(get(q, "/api/v1/search", "wrong-key").statusCode()).isEqualTo(401);
        assertThat(get(q, "/api/v1/search?tenant=globex", ACME_KEY).statusCode())
                .isEqualTo(403);
        assertThat(get(q, "/api/v1/search?tenant_id=globex", ACME_KEY).statusCode())
                .isEqualTo(403);
        assertThat(get(q, "/api/v1/search", ACME_KEY, "X-Tenant-Id", "globex").statusCode())
                .isEqualTo(403);
        assertThat(get(q, "/api/v1/search?tenant=acme", ACME_KEY).statusCode()).isEqualTo(200);
        assertThat(get(q, "/api/v1/search", GLOBEX_KEY).statusCode()).isEqualTo(200);
    }
}
