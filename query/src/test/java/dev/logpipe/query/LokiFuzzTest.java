package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.record.Level;
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
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * LogQL that parses, with random selectors, stages and metric wrappers, run over real HTTP on records of every shape
 * (JSON, logfmt, plain, odd fields): each answers 200, or 400 with a message (a pipeline error, a limit), never 500.
 */
class LokiFuzzTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static Path data;
    static QueryProcess q;

    @BeforeContainer
    static void start() throws Exception {
        data = Files.createTempDirectory("loki-fuzz");
        List<LogRecord> rs = new ArrayList<>();
        String[] lines = {
            "{\"status\":500,\"took\":\"1.5s\",\"size\":\"10KB\",\"nested\":{\"a\":[1,2],\"b\":null}}",
            "method=GET status=200 took=12ms msg=\"a \\\"quoted\\\" thing\" empty=",
            "plain text with ünïcode and \u0001 control",
            "{\"broken json",
            "",
            "status=abc took=forever size=-1",
        };
        for (int i = 0; i < 60; i++) {
            rs.add(record("acme", "f-" + i, NOW.minusSeconds(7L * i + 1), lines[i % lines.length])
                    .service(i % 2 == 0 ? "api" : "web")
                    .level(i % 3 == 0 ? Level.ERROR : Level.INFO)
                    .field("took_ms", i)
                    .field("odd.name-x", i % 2 == 0 ? "v" : "w")
                    .build());
        }
        QueryFixture.write(data, rs);
        q = QueryFixture.start(data, "", InstantSource.fixed(NOW));
    }

    @AfterContainer
    static void stop() throws Exception {
        q.close();
    }

    @Provide
    Arbitrary<String> queries() {
        Arbitrary<String> matcher = Combinators.combine(
                        Arbitraries.of("service", "level", "instance_id", "region", "fields_odd_name_x", "nope"),
                        Arbitraries.of("=", "!=", "=~", "!~"),
                        Arbitraries.of("\"api\"", "\"\"", "\"ERROR|INFO\"", "\".+\"", "\"a.*\"", "\"v\""))
                .as((n, o, v) -> n + o + v);
        Arbitrary<String> selector =
                matcher.list().ofMinSize(1).ofMaxSize(3).map(l -> "{" + String.join(", ", l) + "}");
        Arbitrary<String> stage = Arbitraries.of(
                "|= \"status\"",
                "!= \"GET\"",
                "|~ \"(?i)TEXT|\\\\d+\"",
                "!~ \"^$\"",
                "| json",
                "| json s=\"status\", n=\"nested.a[1]\", x=\"[\\\"took\\\"]\"",
                "| logfmt",
                "| logfmt st=\"status\"",
                "| pattern \"<a> <b> <_>\"",
                "| regexp \"(?P<word>\\\\w+)\"",
                "| status >= 400",
                "| took > 1s",
                "| size < 1MB",
                "| status = \"500\" or method=~\"G.*\"",
                "| __error__ = \"\"",
                "| __error__ != \"\"",
                "| line_format \"{{.service}} {{__line__}} {{.missing}}\"",
                "| label_format lvl=level, t=\"{{.took}}\"",
                "| drop took, status=\"200\"",
                "| keep service, level, took_ms, fields_took_ms");
        Arbitrary<String> log =
                Combinators.combine(selector, stage.list().ofMaxSize(4)).as((s, st) -> s + " " + String.join(" ", st));
        Arbitrary<String> unwrapped = Combinators.combine(
                        log,
                        Arbitraries.of("fields_took_ms", "took", "size", "status", "nope"),
                        Arbitraries.of("", "duration", "bytes"))
                .as((l, label, conv) -> l + " | unwrap " + (conv.isEmpty() ? label : conv + "(" + label + ")"));
        Arbitrary<String> range = Arbitraries.of("[1s]", "[1m]", "[5m]", "[1h]", "[1d]");
        Arbitrary<String> counting = Combinators.combine(
                        Arbitraries.of("count_over_time", "rate", "bytes_over_time", "bytes_rate"), log, range)
                .as((f, l, r) -> f + "(" + l + " " + r + ")");
        Arbitrary<String> sampling = Combinators.combine(
                        Arbitraries.of(
                                "sum_over_time",
                                "avg_over_time",
                                "min_over_time",
                                "max_over_time",
                                "first_over_time",
                                "last_over_time",
                                "quantile_over_time(0.9,",
                                "quantile_over_time(2,"),
                        unwrapped,
                        range)
                .as((f, l, r) -> (f.endsWith(",") ? f : f + "(") + l + " " + r + ")");
        Arbitrary<String> inner = Arbitraries.oneOf(counting, sampling);
        Arbitrary<String> metric = Combinators.combine(
                        Arbitraries.of(
                                "%s",
                                "sum(%s)",
                                "sum by (level) (%s)",
                                "count without (service) (%s)",
                                "avg(%s) > 0.5",
                                "topk(2, %s)",
                                "bottomk(1, sum by (service) (%s))",
                                "max(%s) / 0",
                                "-min(%s) ^ 2 % 3",
                                "%s > bool 1",
                                "1 - %s",
                                "sum(%s) + sum(%s)"),
                        inner)
                .as((w, i) -> w.replace("%s", i));
        return Arbitraries.oneOf(log, metric, Arbitraries.of("vector(1)+vector(1)", "1/0", "vector(-1) * 2"));
    }

    @Property(tries = 250)
    void everyParsedQueryIsAnsweredOrRefusedWithAReason(@ForAll("queries") String text) throws Exception {
        HttpResponse<String> r = get(
                q,
                "/loki/api/v1/query_range?limit=50&step=60000ms&query=" + enc(text) + "&start="
                        + NOW.minusSeconds(1800).toEpochMilli() * 1_000_000 + "&end=" + NOW.toEpochMilli() * 1_000_000,
                ACME_KEY);
        assertThat(r.statusCode()).as(text + " -> " + r.body()).isIn(200, 400);
        if (r.statusCode() == 400) {
            assertThat(QueryFixture.json(r).get("message").asText()).as(text).isNotBlank();
        } else {
            assertThat(QueryFixture.json(r).at("/status").asText()).as(text).isEqualTo("success");
        }
    }
}
