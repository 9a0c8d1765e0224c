package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** Hostile query text, cursors and parameters: only 200 or 400 with a reason, never a 500. */
class FuzzTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static Path data;
    static QueryProcess q;
    static String goodCursor;

    @BeforeContainer
    static void start() throws Exception {
        data = Files.createTempDirectory("query-fuzz");
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            rs.add(record("acme", "a-" + i, NOW.minusSeconds(i + 1), "hello-ab12-" + i + " order_id=CO-99" + i)
                    .field("took_ms", i)
                    .build());
        }
        QueryFixture.write(data, rs);
        q = QueryFixture.start(data, "", InstantSource.fixed(NOW));
        goodCursor = QueryFixture.json(get(q, "/api/v1/search?limit=5", ACME_KEY))
                .get("next_cursor")
                .asText();
    }

    @AfterContainer
    static void stop() throws Exception {
        q.close();
    }

    @Provide
    Arbitrary<String> queries() {
        Arbitrary<String> pieces = Arbitraries.of(
                "level:",
                "ERROR",
                "(",
                ")",
                "\"",
                "*",
                "?",
                "~",
                "^",
                "[",
                "]",
                "{",
                "}",
                " TO ",
                " AND ",
                " OR ",
                "NOT ",
                "-",
                "+",
                "\\",
                "/",
                ":",
                "fields.took_ms:",
                ">",
                "<=",
                "event_time:",
                "2026-12-01T00:00:00Z",
                "now",
                "a*",
                "*a",
                "/[a-z]+/",
                "/(.*){20}/",
                "~2",
                "é",
                "\u0000",
                "#",
                "fields.a#b:",
                "_source:",
                "tenant_id:",
                "record_id:",
                "CO-99*",
                " ",
                "10.0.0.1",
                "&&",
                "||");
        return Arbitraries.oneOf(
                pieces.list().ofMaxSize(12).map(l -> String.join("", l)),
                Arbitraries.strings().ofMaxLength(40));
    }

    @Property(tries = 150)
    void anyQueryTextIsAnsweredOrRefusedWithAReasonNeverA500(@ForAll("queries") String text) throws Exception {
        for (String endpoint : List.of("search", "histogram", "fields/service/top")) {
            HttpResponse<String> r = get(q, "/api/v1/" + endpoint + "?from=now-1d&q=" + enc(text), ACME_KEY);
            assertThat(r.statusCode())
                    .as(endpoint + " " + text + " -> " + r.body())
                    .isIn(200, 400);
            if (r.statusCode() == 400) {
                assertThat(r.body()).contains("\"error\"").contains("\"reason\"");
            }
        }
    }

    @Provide
    Arbitrary<String> cursors() {
        Arbitrary<String> edits = Arbitraries.integers()
                .between(0, goodCursor.length() - 1)
                .flatMap(i -> Arbitraries.chars()
                        .ascii()
                        .map(c -> goodCursor.substring(0, i) + c + goodCursor.substring(i + 1)));
        return Arbitraries.oneOf(
                edits,
                Arbitraries.strings().ofMaxLength(300),
                Arbitraries.strings().withChars("abcXYZ-_.=0123456789").ofMaxLength(200),
                Arbitraries.just(goodCursor + "."),
                Arbitraries.just("." + goodCursor));
    }

    @Property(tries = 150)
    void anyCursorIsRefusedWithA400UnlessItIsOneWeHandedOut(@ForAll("cursors") String cursor) throws Exception {
        HttpResponse<String> r = get(q, "/api/v1/search?limit=5&cursor=" + enc(cursor), ACME_KEY);
        if (cursor.equals(goodCursor)) {
            assertThat(r.statusCode()).isEqualTo(200);
        } else {
            assertThat(r.statusCode()).as(cursor + " -> " + r.body()).isIn(200, 400);
        }
    }

    @Property(tries = 60)
    void anyRangeLimitOrIntervalParameterIsAnsweredOrRefusedNeverA500(@ForAll("params") String value) throws Exception {
        for (String name : List.of("from", "to", "limit", "interval", "order", "size")) {
            String path = name.equals("interval") || name.equals("size") ? "histogram" : "search";
            HttpResponse<String> r = get(q, "/api/v1/" + path + "?" + name + "=" + enc(value), ACME_KEY);
            assertThat(r.statusCode())
                    .as(name + "=" + value + " -> " + r.body())
                    .isIn(200, 400);
        }
    }

    @Provide
    Arbitrary<String> params() {
        return Arbitraries.oneOf(
                Arbitraries.of(
                        "now-99999999999d",
                        "now+5y",
                        "now-1ms",
                        "2026-13-01T00:00:00Z",
                        "-1",
                        "0",
                        "99999999999",
                        "1ms",
                        "0s",
                        "1d",
                        "desc",
                        "asc",
                        "",
                        "9999-12-31T23:59:59Z",
                        "0001-01-01T00:00:00Z",
                        "now-999999999w"),
                Arbitraries.strings().ofMaxLength(30));
    }
}
