package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Loki read API over real HTTP, called as Grafana's Loki data source calls it (pkg/tsdb/loki: Basic auth with the
 * API key as password, ns start/end, step in ms, direction), checked against the native API on the same shards and
 * against the test's own model of the records.
 */
class LokiApiTest {
    static final Instant NOW = Instant.parse("2026-12-03T12:00:00Z");
    static final int N = 600;
    static Path data;
    static QueryConfig config;
    static QueryProcess q;

    static String message(int i) {
        return i % 2 == 0
                ? "{\"status\":" + (i % 4 == 0 ? 500 : 200) + ",\"took_ms\":" + i + ",\"msg\":\"req " + i + "\"}"
                : "method=GET status=" + (i % 4 == 1 ? 503 : 200) + " took=" + i + "ms msg=\"slow request\"";
    }

    static String service(int i) {
        return i % 3 == 0 ? "billing" : "api";
    }

    static Level level(int i) {
        return i % 5 == 0 ? Level.ERROR : Level.INFO;
    }

    static Instant time(int i) {
        return NOW.minusSeconds(10L * i + 1);
    }

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("loki-api");
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            rs.add(record("acme", "r-" + i, time(i), message(i))
                    .service(service(i))
                    .level(level(i))
                    .field("tier", i % 2 == 0 ? "gold" : "free")
                    .field("log.offset", 100L * i)
                    .build());
        }
        for (int i = 0; i < 50; i++) {
            rs.add(record("globex", "g-" + i, NOW.minusSeconds(7L * i + 3), "globex secret " + i)
                    .build());
        }
        QueryFixture.write(data, rs);
        config = QueryFixture.config(data, "");
        q = QueryProcess.start(config, InstantSource.fixed(NOW));
    }

    @AfterAll
    static void stop() throws Exception {
        q.close();
    }

    static String basic(String key) {
        return "Basic " + Base64.getEncoder().encodeToString(("grafana:" + key).getBytes(StandardCharsets.UTF_8));
    }

    static long ns(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** A query_range exactly as Grafana's makeDataRequest builds it. */
    static HttpResponse<String> range(String key, String query, Instant start, Instant end, long stepMs, String more)
            throws Exception {
        return get(
                q,
                "/loki/api/v1/query_range?query=" + enc(query) + "&start=" + ns(start)
                        + "&end=" + ns(end) + "&step=" + stepMs + "ms"
                        + (more.contains("direction=") ? "" : "&direction=backward")
                        + (more.contains("limit=") ? "" : "&limit=1000") + more,
                null,
                "Authorization",
                basic(key));
    }

    static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return json(r);
    }

    /** The one value of an instant query that sums to one series. */
    static double instant(String query) throws Exception {
        JsonNode r = ok(get(
                q,
                "/loki/api/v1/query?direction=backward&query=" + enc(query) + "&time=" + ns(NOW),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(r.at("/data/resultType").asText()).isEqualTo("vector");
        assertThat(r.at("/data/result")).as(query).hasSize(1);
        return Double.parseDouble(r.at("/data/result/0/value/1").asText());
    }

    static int count(IntPredicate p) {
        int n = 0;
        for (int i = 0; i < N; i++) {
            if (p.test(i)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void theDataSourceHealthCheckAnswersTwo() throws Exception {
        // healthcheck.go: an instant query over the range (1s, 4s], direction backward, no limit
        JsonNode r = ok(get(
                q,
                "/loki/api/v1/query?direction=backward&query=" + enc("vector(1)+vector(1)") + "&time=4000000000",
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(r.get("status").asText()).isEqualTo("success");
        assertThat(r.at("/data/resultType").asText()).isEqualTo("vector");
        assertThat(r.at("/data/result")).hasSize(1);
        assertThat(r.at("/data/result/0/metric")).isEmpty();
        assertThat(r.at("/data/result/0/value/1").asText()).isEqualTo("2");
    }

    @Test
    void aLogQueryFindsWhatTheNativeSearchFinds() throws Exception {
        JsonNode native_ = ok(get(
                q, "/api/v1/search?limit=1000&from=now-3h&to=now&q=" + enc("service:api AND level:ERROR"), ACME_KEY));
        List<String> expected = new ArrayList<>();
        for (JsonNode h : native_.get("hits")) {
            Instant t = Instant.parse(h.get("event_time").asText());
            expected.add(ns(t) + " " + h.get("message").asText());
        }
        JsonNode r =
                ok(range(ACME_KEY, "{service=\"api\", level=\"ERROR\"}", NOW.minusSeconds(10_800), NOW, 20_000, ""));
        assertThat(r.at("/data/resultType").asText()).isEqualTo("streams");
        List<String> got = new ArrayList<>();
        for (JsonNode s : r.at("/data/result")) {
            assertThat(s.at("/stream/service").asText()).isEqualTo("api");
            assertThat(s.at("/stream/level").asText()).isEqualTo("ERROR");
            assertThat(s.get("stream").has("fields_log_offset")).isFalse();
            for (JsonNode v : s.get("values")) {
                got.add(v.get(0).asText() + " " + v.get(1).asText());
            }
        }
        assertThat(expected).hasSize(count(i -> service(i).equals("api") && level(i) == Level.ERROR));
        assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
        // forward with a limit: the oldest lines, oldest first within a stream
        JsonNode f = ok(range(
                ACME_KEY,
                "{service=\"billing\"} |= \"slow\"",
                NOW.minusSeconds(10_800),
                NOW,
                20_000,
                "&limit=5&direction=forward"));
        List<Long> times = new ArrayList<>();
        for (JsonNode s : f.at("/data/result")) {
            s.get("values").forEach(v -> times.add(Long.parseLong(v.get(0).asText())));
        }
        assertThat(times).hasSize(5);
        List<Long> oldest = new ArrayList<>();
        for (int i = N - 1; i >= 0 && oldest.size() < 5; i--) {
            if (service(i).equals("billing") && message(i).contains("slow")) {
                oldest.add(ns(time(i)));
            }
        }
        assertThat(times).containsExactlyInAnyOrderElementsOf(oldest);
    }

    /** The lines of a log query over the whole data, as "ns line", and how many records it read. */
    record Lines(List<String> lines, long read) {}

    static Lines lines(String query) throws Exception {
        JsonNode r = ok(range(ACME_KEY, query, NOW.minusSeconds(10_800), NOW, 20_000, ""));
        List<String> got = new ArrayList<>();
        for (JsonNode s : r.at("/data/result")) {
            s.get("values")
                    .forEach(v -> got.add(v.get(0).asText() + " " + v.get(1).asText()));
        }
        return new Lines(got, r.at("/data/stats/summary/totalLinesProcessed").asLong(-1));
    }

    @Test
    void aLineFilterReadsOnlyTheRecordsTheIndexNamesAndStillChecksEachExactly() throws Exception {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            if (message(i).contains("took=17ms")) {
                expected.add(ns(time(i)) + " " + message(i));
            }
        }
        assertThat(expected).hasSize(1);
        Lines found = lines("{service=~\"api|billing\"} |= \"took=17ms\"");
        assertThat(found.lines()).containsExactlyElementsOf(expected);
        assertThat(found.read()).as("records read of %d", N).isEqualTo(1);

        Lines otherCase = lines("{service=~\"api|billing\"} |= \"TOOK=17ms\"");
        assertThat(otherCase.lines())
                .as("the filter is case sensitive, the index is not")
                .isEmpty();
        assertThat(otherCase.read()).isEqualTo(1);

        Lines rewritten = lines("{service=~\"api|billing\"} | line_format \"{{.service}}\" |= \"took=17ms\"");
        assertThat(rewritten.lines())
                .as("a filter after line_format sees the new line")
                .isEmpty();
        assertThat(rewritten.read()).as("and the index cannot answer for it").isEqualTo(N);

        Lines either = lines("{service=~\"api|billing\"} |= \"took=17ms\" or \"took=19ms\"");
        assertThat(either.lines()).hasSize(2);
        assertThat(either.read()).isEqualTo(2);

        // a pasted text of many words: the index is asked for its longest runs only, never past the clause cap
        StringBuilder pasted = new StringBuilder(" took=17ms");
        for (int i = 0; i < 700; i++) {
            pasted.append(" w").append(i);
        }
        Lines long_ = lines("{service=~\"api|billing\"} |= \"" + pasted + "\" or \"" + pasted + " x\"");
        assertThat(long_.lines()).isEmpty();
        assertThat(long_.read()).isZero();

        // the parts of tokens walked for the first filter were kept: asked again, the same answer from them
        double hits = metric("logpipe_query_term_walks_hits");
        assertThat(lines("{service=~\"api|billing\"} |= \"took=17ms\"").lines()).containsExactlyElementsOf(expected);
        assertThat(metric("logpipe_query_term_walks_hits")).isGreaterThan(hits);
        assertThat(metric("logpipe_query_term_walks_bytes")).isPositive();
    }

    /** A gauge's value on the query process's {@code /metrics}. */
    static double metric(String name) throws Exception {
        for (String line : QueryFixture.get(q, "/metrics", null).body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError(name + " is not on /metrics");
    }

    @Test
    void aSumOverAStreamPerRecordIsCountedPerGroupNotRefused() throws Exception {
        // | json makes took_ms a label: 300 streams × 7,201 one-second steps is past the 2,000,000 series × steps
        // cap, but the outer sum needs one series only (counted per group while reading)
        JsonNode r = ok(range(
                ACME_KEY,
                "sum(count_over_time({service=~\"api|billing\"} |= \"\\\"msg\\\"\" | json [1s]))",
                NOW.minusSeconds(7200),
                NOW,
                1000,
                ""));
        assertThat(r.at("/data/result")).hasSize(1);
        long total = 0;
        for (JsonNode v : r.at("/data/result/0/values")) {
            total += Long.parseLong(v.get(1).asText());
        }
        assertThat(total).isEqualTo(count(i -> message(i).contains("\"msg\"")));
        JsonNode byStatus = ok(range(
                ACME_KEY,
                "sum by (status) (count_over_time({service=~\"api|billing\"} |= \"\\\"msg\\\"\" | json [1s]))",
                NOW.minusSeconds(7200),
                NOW,
                1000,
                ""));
        assertThat(byStatus.at("/data/result")).hasSize(2); // 200 and 500
    }

    @Test
    void theVolumeHistogramAddsUpToTheNativeCounts() throws Exception {
        // Explore's logs volume query, as the data source sends it (step in ms, Source=logvolhist)
        JsonNode r = ok(range(
                ACME_KEY,
                "sum by (level, detected_level) (count_over_time({service=\"api\"} [1m]))",
                NOW.minusSeconds(7200),
                NOW,
                60_000,
                ""));
        assertThat(r.at("/data/resultType").asText()).isEqualTo("matrix");
        Map<String, Long> perLevel = new HashMap<>();
        for (JsonNode s : r.at("/data/result")) {
            long sum = 0;
            for (JsonNode v : s.get("values")) {
                assertThat(v.get(0).isNumber()).isTrue();
                sum += Long.parseLong(v.get(1).asText());
            }
            perLevel.put(s.at("/metric/level").asText(), sum);
        }
        for (String level : List.of("ERROR", "INFO")) {
            long nativeTotal = ok(get(
                            q,
                            "/api/v1/histogram?from=now-3h&to=now&q=" + enc("service:api AND level:" + level),
                            ACME_KEY))
                    .get("total")
                    .asLong();
            assertThat(perLevel.get(level)).as(level).isEqualTo(nativeTotal).isPositive();
        }
        assertThat(instant("sum(count_over_time({service=\"api\"}[2h]))"))
                .isEqualTo(count(i -> service(i).equals("api")));
        // that query counts with the shards' histograms (no line read); the same query with a pipeline reads the
        // records: both answer the same
        assertThat(r.at("/data/stats/summary/totalBytesProcessed").asLong()).isZero();
        for (String[] pair : List.of(
                new String[] {
                    "sum by (level, detected_level) (count_over_time({service=\"api\"} [1m]))",
                    "sum by (level, detected_level) (count_over_time({service=\"api\"} |= \"\" [1m]))"
                },
                new String[] {
                    "sum by (service) (rate({level!=\"DEBUG\"} [1m]))",
                    "sum by (service) (rate({level!=\"DEBUG\"} != \"nothing like this\" [1m]))"
                },
                new String[] {
                    "sum(count_over_time({level=\"ERROR\"} [1m]))",
                    "sum(count_over_time({level=\"ERROR\"} |~ \".*\" [1m]))"
                })) {
            // steps end half a second before a record's minute: a window off by a second would count it twice
            Instant start = NOW.minusMillis(7_201_500);
            JsonNode counted = ok(range(ACME_KEY, pair[0], start, NOW, 60_000, ""));
            JsonNode read = ok(range(ACME_KEY, pair[1], start, NOW, 60_000, ""));
            assertThat(counted.at("/data/stats/summary/totalBytesProcessed").asLong())
                    .as(pair[0])
                    .isZero();
            assertThat(read.at("/data/stats/summary/totalBytesProcessed").asLong())
                    .as(pair[1])
                    .isPositive();
            assertThat(counted.at("/data/result")).as(pair[0]).isNotEmpty().isEqualTo(read.at("/data/result"));
        }
    }

    @Test
    void parsersFiltersAndFunctionsAnswerWhatTheRecordsHold() throws Exception {
        assertThat(instant("sum(count_over_time({service=\"api\"} | json | __error__=\"\" | status >= 500 [2h]))"))
                .isEqualTo(count(i -> service(i).equals("api") && i % 4 == 0));
        assertThat(instant("sum(count_over_time({service=\"api\"} |= \"method=\" | logfmt | status=503 [2h]))"))
                .isEqualTo(count(i -> service(i).equals("api") && i % 4 == 1));
        assertThat(instant("sum(count_over_time({service=\"api\"} |= \"method=\" "
                        + "| pattern \"method=<method> status=<status> <_>\" | status=\"503\" [2h]))"))
                .isEqualTo(count(i -> service(i).equals("api") && i % 4 == 1));
        assertThat(instant("sum(count_over_time({service=\"api\"} |~ \"took=\\\\d+ms\" "
                        + "| regexp \"took=(?P<took>\\\\d+)ms\" | took > 300 [2h]))"))
                .isEqualTo(count(i -> service(i).equals("api") && i % 2 == 1 && i > 300));
        double seconds = 0;
        for (int i = 1; i < N; i += 2) {
            if (service(i).equals("api")) {
                seconds += i / 1000d;
            }
        }
        assertThat(instant(
                        "sum(sum_over_time({service=\"api\"} |= \"method=\" | logfmt | unwrap duration(took) [2h]))"))
                .isCloseTo(seconds, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(instant("max(max_over_time({service=\"billing\"} | json | __error__=\"\" | unwrap took_ms [2h]))"))
                .isEqualTo(N - 6); // the largest even multiple of 3 below 600
        assertThat(instant("sum(count_over_time({fields_tier=\"gold\"}[2h]))")).isEqualTo(N / 2);
        assertThat(instant("sum(count_over_time({service=\"api\"}[2h])) * 2 + 1"))
                .isEqualTo(2 * count(i -> service(i).equals("api")) + 1);
        assertThat(instant("sum(rate({service=\"api\"}[2h]))"))
                .isCloseTo(count(i -> service(i).equals("api")) / 7200d, org.assertj.core.data.Offset.offset(1e-9));
        JsonNode top = ok(get(
                q,
                "/loki/api/v1/query?query="
                        + enc("topk(1, sum by (service) (count_over_time({level=~\"INFO|ERROR\"}[2h])))")
                        + "&time=" + ns(NOW),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(top.at("/data/result")).hasSize(1);
        assertThat(top.at("/data/result/0/metric/service").asText()).isEqualTo("api");
        double median = instant(
                "quantile_over_time(0.5, {service=\"billing\"} | json took_ms | __error__=\"\" | unwrap took_ms [2h]) by (service)");
        List<Integer> billingJson = new ArrayList<>();
        for (int i = 0; i < N; i += 6) {
            billingJson.add(i);
        }
        assertThat(median).isEqualTo((billingJson.get(49) + billingJson.get(50)) / 2d);
        JsonNode formatted = ok(range(
                ACME_KEY,
                "{service=\"billing\", level=\"ERROR\"} | line_format \"{{.level}}:{{.fields_tier}}\" | drop fields_tier",
                NOW.minusSeconds(10_800),
                NOW,
                20_000,
                ""));
        Set<String> lines = new TreeSet<>();
        for (JsonNode s : formatted.at("/data/result")) {
            assertThat(s.get("stream").has("fields_tier")).isFalse();
            s.get("values").forEach(v -> lines.add(v.get(1).asText()));
        }
        assertThat(lines).containsExactly("ERROR:free", "ERROR:gold");
        // a pipeline error in a metric query is refused, as Loki does, with the way out
        HttpResponse<String> err = get(
                q,
                "/loki/api/v1/query?query=" + enc("sum(count_over_time({service=\"api\"} | json [2h]))"),
                null,
                "Authorization",
                basic(ACME_KEY));
        assertThat(err.statusCode()).isEqualTo(400);
        assertThat(json(err).get("message").asText()).contains("JSONParserErr").contains("__error__");
    }

    @Test
    void labelsValuesSeriesAndStatsDescribeTheTenantsRecords() throws Exception {
        String range = "start=" + ns(NOW.minusSeconds(7200)) + "&end=" + ns(NOW);
        JsonNode labels = ok(get(q, "/loki/api/v1/labels?" + range, null, "Authorization", basic(ACME_KEY)));
        List<String> names = new ArrayList<>();
        labels.get("data").forEach(n -> names.add(n.asText()));
        assertThat(names)
                .contains("service", "level", "instance_id", "fields_tier")
                .doesNotContain("fields_log_offset");
        JsonNode values =
                ok(get(q, "/loki/api/v1/label/service/values?" + range, null, "Authorization", basic(ACME_KEY)));
        assertThat(values.get("data").toString()).isEqualTo("[\"api\",\"billing\"]");
        JsonNode levels = ok(get(
                q,
                "/loki/api/v1/label/level/values?" + range + "&query=" + enc("{service=\"billing\"}"),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(levels.get("data").toString()).isEqualTo("[\"ERROR\",\"INFO\"]");
        JsonNode tiers = ok(get(
                q,
                "/loki/api/v1/label/fields_tier/values?" + range + "&query=" + enc("{service=~\"bill.*\"}"),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(tiers.get("data").toString()).isEqualTo("[\"free\",\"gold\"]");
        // the index answers a label's values under an exact selector, the records under any other: the same values
        for (String label : List.of("fields_tier", "fields_log_offset", "service")) {
            JsonNode fromIndex = ok(get(
                    q,
                    "/loki/api/v1/label/" + label + "/values?" + range + "&query=" + enc("{level=\"ERROR\"}"),
                    null,
                    "Authorization",
                    basic(ACME_KEY)));
            JsonNode fromRecords = ok(get(
                    q,
                    "/loki/api/v1/label/" + label + "/values?" + range + "&query=" + enc("{level=~\"ERROR\"}"),
                    null,
                    "Authorization",
                    basic(ACME_KEY)));
            assertThat(fromIndex.get("data")).as(label).isNotEmpty().isEqualTo(fromRecords.get("data"));
        }
        JsonNode series = ok(get(
                q,
                "/loki/api/v1/series?" + range + "&match[]=" + enc("{service=\"billing\", level=\"ERROR\"}"),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(series.get("data")).hasSize(2); // one per tier
        for (JsonNode s : series.get("data")) {
            assertThat(s.get("service").asText()).isEqualTo("billing");
            assertThat(s.get("level").asText()).isEqualTo("ERROR");
        }
        JsonNode stats = ok(get(
                q,
                "/loki/api/v1/index/stats?" + range + "&query=" + enc("{service=\"api\"} |= \"x\""),
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(stats.get("entries").asLong())
                .isEqualTo(count(i -> service(i).equals("api")));
        assertThat(stats.get("streams").asLong()).isEqualTo(4); // two levels × two tiers
        assertThat(stats.get("bytes").asLong()).isPositive();
        JsonNode volume = ok(get(
                q,
                "/loki/api/v1/index/volume?" + range + "&query=" + enc("{service=~\".+\"}") + "&limit=1",
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(volume.at("/data/resultType").asText()).isEqualTo("vector");
        assertThat(volume.at("/data/result")).hasSize(1); // limit=1: the largest service only
        JsonNode all = ok(get(
                q,
                "/loki/api/v1/index/volume?" + range + "&query=" + enc("{service=~\".+\"}"),
                null,
                "Authorization",
                basic(ACME_KEY)));
        long apiBytes = 0;
        for (JsonNode v : all.at("/data/result")) {
            assertThat(v.get("metric").fieldNames()).toIterable().containsExactly("service");
            if (v.at("/metric/service").asText().equals("api")) {
                apiBytes = Long.parseLong(v.at("/value/1").asText());
            }
        }
        assertThat(apiBytes).isEqualTo(stats.get("bytes").asLong()); // the selector's bytes, as index/stats counts them
        assertThat(volume.at("/data/result/0/value/1").asLong())
                .isEqualTo(all.at("/data/result/0/value/1").asLong());
        JsonNode byLevel = ok(get(
                q,
                "/loki/api/v1/index/volume?" + range + "&query=" + enc("{service=\"api\"}")
                        + "&targetLabels=level&aggregateBy=labels",
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(byLevel.at("/data/result")).hasSize(2); // api's two levels
        long levelBytes = 0;
        for (JsonNode v : byLevel.at("/data/result")) {
            levelBytes += Long.parseLong(v.at("/value/1").asText());
        }
        assertThat(levelBytes).isEqualTo(apiBytes);
        JsonNode overTime = ok(get(
                q,
                "/loki/api/v1/index/volume_range?" + range + "&query=" + enc("{service=\"api\"}") + "&step=600",
                null,
                "Authorization",
                basic(ACME_KEY)));
        assertThat(overTime.at("/data/resultType").asText()).isEqualTo("matrix");
        assertThat(overTime.at("/data/result")).hasSize(1);
        long stepBytes = 0;
        long previous = Long.MIN_VALUE;
        for (JsonNode point : overTime.at("/data/result/0/values")) {
            long at = point.get(0).asLong();
            assertThat(at).as("steps of 600 s from start, in order").isGreaterThan(previous);
            assertThat((at - NOW.minusSeconds(7200).getEpochSecond()) % 600).isZero();
            previous = at;
            stepBytes += Long.parseLong(point.get(1).asText());
        }
        assertThat(stepBytes).as("every line counted in one step").isEqualTo(apiBytes);
        assertThat(overTime.at("/data/result/0/values").size()).isGreaterThan(1);
    }

    @Test
    void everyLokiEndpointSeesOnlyTheCredentialsTenantAndRefusesAnotherOrgId() throws Exception {
        String range = "start=" + ns(NOW.minusSeconds(7200)) + "&end=" + ns(NOW);
        JsonNode logs = ok(range(GLOBEX_KEY, "{service=\"api\"}", NOW.minusSeconds(7200), NOW, 20_000, ""));
        int lines = 0;
        for (JsonNode s : logs.at("/data/result")) {
            for (JsonNode v : s.get("values")) {
                assertThat(v.get(1).asText()).startsWith("globex secret");
                lines++;
            }
        }
        assertThat(lines).isEqualTo(50);
        assertThat(ok(get(q, "/loki/api/v1/label/service/values?" + range, null, "Authorization", basic(GLOBEX_KEY)))
                        .get("data")
                        .toString())
                .isEqualTo("[\"api\"]");
        assertThat(ok(get(q, "/loki/api/v1/labels?" + range, null, "Authorization", basic(GLOBEX_KEY)))
                        .get("data")
                        .toString())
                .doesNotContain("fields_tier");
        assertThat(ok(get(
                                q,
                                "/loki/api/v1/series?" + range + "&match[]=" + enc("{level=~\".+\"}"),
                                null,
                                "Authorization",
                                basic(GLOBEX_KEY)))
                        .get("data"))
                .hasSize(1);
        assertThat(ok(get(
                                q,
                                "/loki/api/v1/index/stats?" + range + "&query=" + enc("{level=~\".+\"}"),
                                null,
                                "Authorization",
                                basic(GLOBEX_KEY)))
                        .get("entries")
                        .asLong())
                .isEqualTo(50);
        assertThat(ok(get(
                                q,
                                "/loki/api/v1/query?query=" + enc("sum(count_over_time({level=~\".+\"}[2h]))")
                                        + "&time=" + ns(NOW),
                                null,
                                "Authorization",
                                basic(GLOBEX_KEY)))
                        .at("/data/result/0/value/1")
                        .asText())
                .isEqualTo("50");
        List<String> paths = List.of(
                "/loki/api/v1/query_range?query=" + enc("{service=\"api\"}"),
                "/loki/api/v1/query?query=" + enc("vector(1)"),
                "/loki/api/v1/labels",
                "/loki/api/v1/label/service/values",
                "/loki/api/v1/series?match[]=" + enc("{service=\"api\"}"),
                "/loki/api/v1/index/stats?query=" + enc("{service=\"api\"}"),
                "/loki/api/v1/index/volume?query=" + enc("{service=\"api\"}"),
                "/loki/api/v1/index/volume_range?query=" + enc("{service=\"api\"}"));
        for (String path : paths) {
            HttpResponse<String> r = get(q, path, null, "Authorization", basic(GLOBEX_KEY), "X-Scope-OrgID", "acme");
            assertThat(r.statusCode()).as(path).isEqualTo(403);
            assertThat(json(r).get("message").asText()).contains("X-Scope-OrgID");
            assertThat(get(q, path, null, "Authorization", basic(GLOBEX_KEY), "X-Scope-OrgID", "globex")
                            .statusCode())
                    .as(path)
                    .isEqualTo(200);
            assertThat(get(q, path, null).statusCode()).as(path).isEqualTo(401);
        }
        Set<String> refused = new HashSet<>();
        for (String l : Files.readAllLines(config.auditLog())) {
            JsonNode line = QueryFixture.JSON.readTree(l);
            if (line.path("reason").asText().equals("foreign_tenant")) {
                assertThat(line.path("tenant_id").asText()).isEqualTo("globex");
                refused.add(line.path("endpoint").asText());
            }
        }
        assertThat(refused)
                .containsExactlyInAnyOrder(
                        "loki_query_range",
                        "loki_query",
                        "loki_labels",
                        "loki_label_values",
                        "loki_series",
                        "loki_index_stats",
                        "loki_index_volume",
                        "loki_index_volume_range");
    }

    @Test
    void hostileQueriesAreRefusedWithAReasonNeverAFiveHundred() throws Exception {
        HttpResponse<String> unsupported =
                range(ACME_KEY, "{service=\"api\"} | unpack", NOW.minusSeconds(60), NOW, 1000, "");
        assertThat(unsupported.statusCode()).isEqualTo(400);
        assertThat(json(unsupported).get("message").asText())
                .contains("| unpack")
                .contains("not supported");
        assertThat(json(unsupported).get("status").asText()).isEqualTo("error");
        String[] pieces = {
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            ",",
            "\"",
            "=",
            "!=",
            "=~",
            "|=",
            "|~",
            "|",
            ">",
            "+",
            "/",
            " ",
            "service",
            "\"api\"",
            "\"(\"",
            "5m",
            "1e308",
            "json",
            "logfmt",
            "unwrap",
            "by",
            "sum",
            "topk",
            "count_over_time",
            "quantile_over_time",
            "vector",
            "__error__",
            "0",
            "-1",
            "\"{{.x}}\"",
            "line_format"
        };
        Random random = new Random(27);
        for (int t = 0; t < 150; t++) {
            StringBuilder b = new StringBuilder();
            for (int i = random.nextInt(25); i >= 0; i--) {
                b.append(pieces[random.nextInt(pieces.length)]);
            }
            String text = t % 3 == 0 ? "sum(count_over_time({service=\"api\"} " + b + " [1m]))" : b.toString();
            HttpResponse<String> r = range(ACME_KEY, text, NOW.minusSeconds(600), NOW, 60_000, "");
            assertThat(r.statusCode()).as(text + " -> " + r.body()).isIn(200, 400);
            if (r.statusCode() == 400) {
                assertThat(json(r).get("message").asText()).as(text).isNotBlank();
            }
        }
        for (String bad : List.of("&step=0", "&step=x", "&start=yesterday", "&direction=sideways", "&limit=0")) {
            HttpResponse<String> r = get(
                    q,
                    "/loki/api/v1/query_range?query=" + enc("count_over_time({service=\"api\"}[1m])") + bad,
                    null,
                    "Authorization",
                    basic(ACME_KEY));
            assertThat(r.statusCode()).as(bad + " -> " + r.body()).isEqualTo(400);
        }
    }
}
