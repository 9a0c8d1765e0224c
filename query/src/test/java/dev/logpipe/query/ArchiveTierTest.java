package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.archive.tier.ArchiveCatalog;
import dev.logpipe.archive.tier.Archiver;
import dev.logpipe.archive.tier.TieredShardSource;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The query service's endpoints answer the same after a tenant's days move to the archive tier (issue 28): every page
 * of two paginated searches (runs of identical timestamps, both orders), a histogram, fields, top values and a
 * context, compared exactly (but for {@code took_ms}) before and after, through {@code TieredShardSource}; the other
 * tenant's answers do not change.
 */
class ArchiveTierTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String RANGE = "&from=" + enc("2026-11-27T00:00:00Z") + "&to=" + enc("2026-12-01T12:00:00Z");

    @TempDir
    Path dir;

    private static List<LogRecord> records(String tenant, LocalDate day, int n) {
        List<LogRecord> out = new ArrayList<>();
        Instant t0 = day.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(7200);
        for (int i = 0; i < n; i++) {
            out.add(record(
                            tenant,
                            tenant + "-" + day + "-" + Integer.toHexString(i * 7919),
                            t0.plusSeconds((i / 4) * 97L),
                            "request " + i + " user=u" + (i % 13) + " took " + (i % 9) + "ms")
                    .service(i % 3 == 0 ? "checkout" : "payments")
                    .instanceId("host-" + (i % 2))
                    .level(i % 11 == 0 ? Level.ERROR : Level.INFO)
                    .field("http.status", i % 11 == 0 ? 500 : 200)
                    .build());
        }
        return out;
    }

    private static JsonNode get(QueryServer server, String pathAndQuery, String key) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + server.address().getPort() + pathAndQuery))
                        .header("Authorization", "Bearer " + key)
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(pathAndQuery + ": " + r.body()).isEqualTo(200);
        return withoutTook(JSON.readTree(r.body()));
    }

    private static JsonNode withoutTook(JsonNode n) {
        if (n instanceof ObjectNode o) {
            o.remove("took_ms");
        }
        for (Iterator<JsonNode> it = n.elements(); it.hasNext(); ) {
            withoutTook(it.next());
        }
        return n;
    }

    /** What the tests do with a running query service. */
    @FunctionalInterface
    private interface Use {
        void with(QueryServer server) throws Exception;
    }

    /** Runs a query service over {@code source} on a free port for {@code use}. */
    private static void serve(QueryConfig config, ShardSource source, Use use) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (QueryService service = QueryService.create(
                config,
                source,
                new ConfiguredKeys(config.keys())::authenticate,
                IndexerProgress.NONE,
                InstantSource.fixed(NOW),
                registry)) {
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, 32);
            server.start();
            try {
                use.with(server);
            } finally {
                server.close();
            }
        }
    }

    private static List<JsonNode> answers(QueryConfig config, ShardSource source, String key, String contextId)
            throws Exception {
        List<JsonNode> out = new ArrayList<>();
        serve(config, source, server -> {
            for (String search :
                    List.of("/api/v1/search?q=&limit=7", "/api/v1/search?q=level:ERROR&limit=3&order=asc")) {
                String cursor = null;
                do {
                    JsonNode page = get(server, search + RANGE + (cursor == null ? "" : "&cursor=" + enc(cursor)), key);
                    out.add(page);
                    cursor = page.hasNonNull("next_cursor")
                            ? page.get("next_cursor").asText()
                            : null;
                } while (cursor != null);
            }
            out.add(get(server, "/api/v1/histogram?q=took&interval=1h" + RANGE, key));
            out.add(get(server, "/api/v1/fields?x=1" + RANGE, key));
            out.add(get(server, "/api/v1/fields/top?field=service&q=" + enc("level:INFO") + RANGE, key));
            out.add(get(server, "/api/v1/fields/top?field=fields.http.status" + RANGE, key));
            if (contextId != null) {
                out.add(get(server, "/api/v1/context/" + enc(contextId) + "?before=6&after=6", key));
            }
        });
        return out;
    }

    @Test
    void everyEndpointAnswersTheSameAfterATenantsDaysAreArchived() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        QueryConfig config = QueryFixture.config(data, "");
        LocalDate d1 = LocalDate.parse("2026-11-28");
        LocalDate d2 = LocalDate.parse("2026-11-29");
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(NOW));
                DirectoryStore objects = new DirectoryStore(dir.resolve("archive"))) {
            List<LogRecord> all = new ArrayList<>(records("acme", d1, 240));
            all.addAll(records("acme", d2, 160));
            all.addAll(records("globex", d1, 90));
            writeAndCommit(store, all);
            LiveShards hot = new LiveShards(store);
            String contextId = "acme-2026-11-28-" + Integer.toHexString(100 * 7919);
            List<JsonNode> acmeBefore = answers(config, hot, ACME_KEY, contextId);
            List<JsonNode> globexBefore = answers(config, hot, GLOBEX_KEY, null);

            ArchiveCatalog catalog = archive(store, hot, objects, d1, d2);
            assertThat(hot.shards(ShardKind.RECORDS, "acme")).isEmpty();

            try (TieredShardSource tiered =
                    new TieredShardSource(hot, catalog, objects, dir.resolve("cache"), 4, InstantSource.fixed(NOW))) {
                List<JsonNode> acmeAfter = answers(config, tiered, ACME_KEY, contextId);
                List<JsonNode> globexAfter = answers(config, tiered, GLOBEX_KEY, null);

                assertThat(acmeBefore).hasSizeGreaterThan(60);
                assertThat(acmeAfter).isEqualTo(acmeBefore);
                assertThat(globexAfter).isEqualTo(globexBefore);
            }
        }
    }

    private static void writeAndCommit(LuceneStore store, List<LogRecord> all) throws Exception {
        QueryFixture.write(store, all);
        store.commit(Map.of("t-0", (long) all.size()));
        store.refresh();
    }

    /** Archives acme's days (16 KiB blocks) into {@code objects}; returns the catalog. */
    private ArchiveCatalog archive(LuceneStore store, LiveShards hot, DirectoryStore objects, LocalDate... days)
            throws Exception {
        ArchiveCatalog catalog = ArchiveCatalog.load(dir.resolve("catalog.json"));
        Archiver archiver = new Archiver(
                store,
                hot,
                objects,
                catalog,
                new ArchiveWriter.Settings(16 << 10, 3),
                dir.resolve("work"),
                InstantSource.fixed(NOW),
                Archiver.Checkpoint.NONE);
        for (LocalDate day : days) {
            archiver.archive(ShardId.records("acme", day));
        }
        return catalog;
    }

    /** Acme's two days (240 and 160 records) written hot, then archived; returns the catalog. */
    private ArchiveCatalog twoArchivedDays(
            LuceneStore store, LiveShards hot, DirectoryStore objects, LocalDate d1, LocalDate d2) throws Exception {
        List<LogRecord> all = new ArrayList<>(records("acme", d1, 240));
        all.addAll(records("acme", d2, 160));
        writeAndCommit(store, all);
        return archive(store, hot, objects, d1, d2);
    }

    /** The answers of a query service over {@code source} to {@code paths} (acme's key), in order. */
    private static List<JsonNode> served(QueryConfig config, ShardSource source, List<String> paths) throws Exception {
        List<JsonNode> answers = new ArrayList<>();
        serve(config, source, server -> {
            for (String path : paths) {
                answers.add(get(server, path, ACME_KEY));
            }
        });
        return answers;
    }

    @Test
    void archivedDaysPastTheArchiveByteBudgetAreLeftOutAndNamedAndCostNothingOnceCached() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        LocalDate d1 = LocalDate.parse("2026-11-28");
        LocalDate d2 = LocalDate.parse("2026-11-29");
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(NOW));
                DirectoryStore objects = new DirectoryStore(dir.resolve("archive"))) {
            LiveShards hot = new LiveShards(store);
            ArchiveCatalog catalog = twoArchivedDays(store, hot, objects, d1, d2);
            long olderDay = 0;
            String key = catalog.entry("acme", d1).orElseThrow().key();
            for (var b : dev.logpipe.archive.format.ArchiveReader.open(key, objects.open(key))
                    .footer()
                    .blocks()) {
                olderDay += b.rawBytes();
            }
            // room for either day's blocks, not both (the older day has more records, so more bytes)
            QueryConfig config = QueryFixture.config(data, "limits:\n  max_archive_bytes: " + olderDay + "\n");

            try (TieredShardSource tiered =
                    new TieredShardSource(hot, catalog, objects, dir.resolve("cache"), 4, InstantSource.fixed(NOW))) {
                String search = "/api/v1/search?q=&limit=1000" + RANGE;
                String noSuchService = "/api/v1/search?q=" + enc("service:nosuch") + "&limit=10" + RANGE;
                JsonNode pruned = served(config, tiered, List.of(noSuchService)).get(0);
                assertThat(pruned.get("shards").get("pruned").asInt())
                        .as("both archived days pruned by their footers' service values, nothing read")
                        .isEqualTo(2);
                assertThat(tiered.stats().restores()).isZero();
                List<JsonNode> answers = served(config, tiered, List.of(search, search));
                JsonNode first = answers.get(0);
                assertThat(first.get("hits")).as("the newer day answers").hasSize(160);
                assertThat(first.get("partial").asBoolean()).isTrue();
                assertThat(first.get("partial_reasons").toString()).contains("max_archive_bytes");
                JsonNode skipped = first.get("shards").get("skipped");
                assertThat(skipped).hasSize(1);
                assertThat(skipped.get(0).get("day").asText()).isEqualTo(d1.toString());
                assertThat(skipped.get(0).get("reason").asText()).isEqualTo("max_archive_bytes");

                JsonNode again = answers.get(1);
                assertThat(again.get("hits"))
                        .as("the newer day is cached now: the budget is the older day's")
                        .hasSize(400);
                assertThat(again.get("partial").asBoolean()).isFalse();
            }
        }
    }

    /** A byte flipped inside the first block (its checksum no longer matches), or in the footer's trailer. */
    @ParameterizedTest(name = "a byte flipped in the {0}")
    @ValueSource(strings = {"block", "footer"})
    void aCorruptArchiveMakesTheAnswerPartialNamingItWhileTheOtherDaysStillAnswer(String where) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        QueryConfig config = QueryFixture.config(data, "");
        LocalDate d1 = LocalDate.parse("2026-11-28");
        LocalDate d2 = LocalDate.parse("2026-11-29");
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(NOW));
                DirectoryStore objects = new DirectoryStore(dir.resolve("archive"))) {
            LiveShards hot = new LiveShards(store);
            ArchiveCatalog catalog = twoArchivedDays(store, hot, objects, d1, d2);
            String key = catalog.entry("acme", d1).orElseThrow().key();
            Path file = dir.resolve("archive").resolve(key);
            byte[] bytes = Files.readAllBytes(file);
            bytes[where.equals("block") ? 200 : bytes.length - 12] ^= 0x5a;
            Files.write(file, bytes);

            try (TieredShardSource tiered =
                    new TieredShardSource(hot, catalog, objects, dir.resolve("cache"), 4, InstantSource.fixed(NOW))) {
                List<JsonNode> answers = served(
                        config,
                        tiered,
                        List.of("/api/v1/search?q=&limit=1000" + RANGE, "/api/v1/histogram?q=&interval=1d" + RANGE));
                JsonNode search = answers.get(0);
                assertThat(search.get("hits"))
                        .as("the intact day still answers")
                        .hasSize(160);
                for (JsonNode answer : answers) {
                    assertThat(answer.get("partial").asBoolean()).isTrue();
                    assertThat(answer.get("partial_reasons").toString()).contains("corrupt");
                    JsonNode skipped = answer.get("shards").get("skipped");
                    assertThat(skipped).hasSize(1);
                    assertThat(skipped.get(0).get("day").asText()).isEqualTo(d1.toString());
                    assertThat(skipped.get(0).get("reason").asText()).isEqualTo("corrupt");
                    assertThat(skipped.get(0).get("detail").asText()).contains(key);
                }
            }
        }
    }
}
