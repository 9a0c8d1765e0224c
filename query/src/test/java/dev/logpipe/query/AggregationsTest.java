package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AggregationsTest {
    static final Instant NOW = Instant.parse("2026-12-03T12:00:00Z");

    @TempDir
    Path data;

    List<LogRecord> records() {
        List<LogRecord> rs = new ArrayList<>();
        String[] services = {"api", "billing", "auth"};
        for (int i = 0; i < 900; i++) { // over three days, three services, two levels
            rs.add(record("acme", "r-" + i, NOW.minusSeconds(300L * i + 7), "request " + (i % 2 == 0 ? "slow" : "ok"))
                    .service(services[i % 3])
                    .level(i % 4 == 0 ? Level.ERROR : Level.INFO)
                    .build());
        }
        return rs;
    }

    @Test
    void histogramCountsEqualSearchTotalsAndTopValuesAddUp() throws Exception {
        QueryFixture.write(data, records());
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            for (String text : List.of("", "slow", "level:ERROR", "service:billing AND slow", "service:nope")) {
                String range = "&from=now-4d&to=now";
                JsonNode h = json(get(q, "/api/v1/histogram?interval=1h&q=" + enc(text) + range, ACME_KEY));
                long sum = 0;
                for (JsonNode b : h.get("buckets")) {
                    sum += b.get("count").asLong();
                }
                assertThat(h.get("total").asLong()).isEqualTo(sum);
                long paged = 0;
                String cursor = null;
                do {
                    JsonNode s = json(get(
                            q,
                            "/api/v1/search?limit=1000&q=" + enc(text) + range
                                    + (cursor == null ? "" : "&cursor=" + cursor),
                            ACME_KEY));
                    paged += s.get("hits").size();
                    cursor = s.has("next_cursor") ? s.get("next_cursor").asText() : null;
                } while (cursor != null);
                assertThat(sum).as(text).isEqualTo(paged);
                JsonNode t = json(get(q, "/api/v1/fields/service/top?size=2&q=" + enc(text) + range, ACME_KEY));
                long values = 0;
                for (JsonNode v : t.get("values")) {
                    values += v.get("count").asLong();
                }
                assertThat(values + t.get("other").asLong() + t.get("missing").asLong())
                        .isEqualTo(t.get("total").asLong())
                        .isEqualTo(sum);
            }
            JsonNode t = json(get(q, "/api/v1/fields/service/top?from=now-4d", ACME_KEY));
            assertThat(t.get("values")).hasSize(3);
            assertThat(t.get("values").get(0).get("count").asLong()).isEqualTo(300);
            JsonNode auto = json(get(q, "/api/v1/histogram?from=now-4d", ACME_KEY));
            assertThat(auto.get("buckets").size()).isBetween(10, 121);
            JsonNode f = json(get(q, "/api/v1/fields?from=now-4d", ACME_KEY));
            assertThat(f.get("fields").toString()).contains("\"level\"").contains("\"message\"");
        }
    }

    @Test
    void fieldsPastTheShardsCapAreListedAsNotIndexedAndStayInTheSource() throws Exception {
        LogRecord.Builder wide = record("acme", "wide", NOW.minusSeconds(10), "wide");
        for (int i = 0; i < 1000; i++) {
            wide.field("f" + i, "v");
        }
        LogRecord late = record("acme", "late", NOW.minusSeconds(5), "late")
                .field("extra.a", "x")
                .field("extra.b", 2L)
                .field("f1", "v")
                .build();
        QueryFixture.write(data, List.of(wide.build(), late));
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            JsonNode f = json(get(q, "/api/v1/fields?from=now-1d", ACME_KEY));
            assertThat(f.get("fields").toString()).contains("\"fields.f999\"").doesNotContain("extra");
            JsonNode ni = f.get("not_indexed");
            assertThat(ni.get("records").asLong()).isEqualTo(1);
            assertThat(ni.get("values").asLong()).isEqualTo(2);
            assertThat(ni.get("sample").toString()).isEqualTo("[\"fields.extra.a\",\"fields.extra.b\"]");
            assertThat(json(get(q, "/api/v1/search?from=now-1d&q=" + enc("fields.extra.a:x"), ACME_KEY))
                            .get("hits"))
                    .isEmpty();
            JsonNode hits = json(get(q, "/api/v1/search?from=now-1d&q=" + enc("fields.f1:v AND late"), ACME_KEY))
                    .get("hits");
            assertThat(hits).hasSize(1);
            assertThat(hits.get(0).toString()).contains("extra.a").contains("extra.b");
        }
    }

    @Test
    void topValuesServeAnyFieldNameTheFieldListShows() throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rs.add(record("acme", "n-" + i, NOW.minusSeconds(10 + i), "odd names")
                    .field("http/path", "/v1/x")
                    .field("a+b", "plus")
                    .field("50%", "pct")
                    .build());
        }
        QueryFixture.write(data, rs);
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            JsonNode f = json(get(q, "/api/v1/fields?from=now-1h", ACME_KEY));
            assertThat(f.get("fields").toString()).contains("\"fields.http/path\"", "\"fields.a+b\"", "\"fields.50%\"");
            for (String name : List.of("fields.http/path", "fields.a+b", "fields.50%")) {
                var r = get(q, "/api/v1/fields/top?from=now-1h&field=" + enc(name), ACME_KEY);
                assertThat(r.statusCode()).as(name + ": " + r.body()).isEqualTo(200);
                assertThat(json(r).get("field").asText()).isEqualTo(name);
                assertThat(json(r).get("values").get(0).get("count").asLong()).isEqualTo(3);
            }
            // the path form is decoded once: '+' stays '+' (a path with an encoded '/' or '%' the server refuses)
            for (String name : List.of("fields.a+b")) {
                var r = get(q, "/api/v1/fields/" + enc(name) + "/top?from=now-1h", ACME_KEY);
                assertThat(r.statusCode()).as(name + ": " + r.body()).isEqualTo(200);
                assertThat(json(r).get("values").get(0).get("count").asLong()).isEqualTo(3);
            }
            // the UI filters on such a field with its reserved characters escaped
            JsonNode s = json(get(q, "/api/v1/search?from=now-1h&q=" + enc("fields.http\\/path:\"/v1/x\""), ACME_KEY));
            assertThat(s.get("hits")).hasSize(3);
            assertThat(get(q, "/api/v1/fields/top?from=now-1h", ACME_KEY).statusCode())
                    .isEqualTo(400);
        }
    }

    @Test
    void labelPruningSkipsShardsWithoutOpeningThem() throws Exception {
        List<LogRecord> rs = new ArrayList<>(records());
        rs.add(record("acme", "rare", NOW.minusSeconds(10), "x")
                .service("rare-svc")
                .build());
        QueryFixture.write(data, rs);
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            JsonNode s = json(get(q, "/api/v1/search?from=now-4d&q=" + enc("service:rare-svc"), ACME_KEY));
            assertThat(s.get("hits")).hasSize(1);
            assertThat(s.get("shards").get("planned").asInt()).isEqualTo(4);
            assertThat(s.get("shards").get("pruned").asInt()).isEqualTo(3);
            assertThat(s.get("shards").get("searched").asInt()).isEqualTo(1);
        }
    }

    @Test
    void contextReturnsTheNeighboursOfTheSameFileInSourceOrder() throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < 30; i++) { // event times out of order: the file's offsets decide
            rs.add(record("acme", "f-" + i, NOW.minusSeconds(100 + (i * 37 % 11)), "line " + i)
                    .field("log.file.path", "/var/log/app.log")
                    .field("log.offset", 100L * i)
                    .build());
            rs.add(record("acme", "other-" + i, NOW.minusSeconds(100 + i), "other file " + i)
                    .field("log.file.path", "/var/log/other.log")
                    .field("log.offset", 100L * i)
                    .build());
        }
        QueryFixture.write(data, rs);
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            JsonNode c = json(get(q, "/api/v1/context/f-10?before=3&after=4", ACME_KEY));
            assertThat(c.get("ordered_by").asText()).isEqualTo("log.offset");
            assertThat(ids(c.get("before"))).containsExactly("f-7", "f-8", "f-9");
            assertThat(ids(c.get("after"))).containsExactly("f-11", "f-12", "f-13", "f-14");
            assertThat(get(q, "/api/v1/context/nope", ACME_KEY).statusCode()).isEqualTo(404);
        }
    }

    static List<String> ids(JsonNode hits) {
        List<String> out = new ArrayList<>();
        hits.forEach(h -> out.add(h.get("record_id").asText()));
        return out;
    }
}
