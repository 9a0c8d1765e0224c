package dev.logpipe.indexer.internal.retention;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.http.HoldsHandler;
import dev.logpipe.indexer.http.IndexerServer;
import dev.logpipe.indexer.http.StatusHandler;
import dev.logpipe.indexer.internal.consume.WriteFailures;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
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
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {
    static final String KEY = "the-admin-key-0123";
    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final LocalDate TODAY = LocalDate.ofInstant(NOW, ZoneOffset.UTC);

    @TempDir
    Path data;

    private static void shard(LuceneStore store, ShardId id) throws Exception {
        Instant t = id.day().atStartOfDay().toInstant(ZoneOffset.UTC);
        RecordCodec codec = new RecordCodec();
        byte[] line = codec.encode(LogRecord.builder("x")
                .recordId("r")
                .tenantId(id.tenant())
                .eventTime(t)
                .observedTime(t)
                .build());
        store.write(id, List.of(new IndexRecord(codec.decode(line), t, t, line, 0, line.length)));
        store.commit(Map.of());
    }

    @Test
    void anExpiredShardIsDeletedUnlessALegalHoldKeepsItAndBothAreAudited() throws Exception {
        InstantSource clock = InstantSource.fixed(NOW);
        ShardId acmeOld = ShardId.records("acme", TODAY.minusDays(40));
        ShardId acmeRecent = ShardId.records("acme", TODAY.minusDays(5));
        ShardId globexOld = ShardId.records("globex", TODAY.minusDays(40));
        ShardId shortLived = ShardId.deadLetters("short", TODAY.minusDays(2));
        Path auditFile = data.resolve("audit.jsonl");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock);
                AuditLog audit = new AuditLog(auditFile, clock)) {
            for (ShardId s : List.of(acmeOld, acmeRecent, globexOld, shortLived)) {
                if (s.kind() == ShardKind.RECORDS) {
                    shard(store, s);
                } else {
                    byte[] src = "{}".getBytes();
                    Instant t = s.day().atStartOfDay().toInstant(ZoneOffset.UTC);
                    store.writeDeadLetters(
                            s,
                            List.of(new DeadLetterEntry(
                                    "d", "short", "SCHEMA_INVALID", "bad", "raw", t, src, 0, src.length)));
                    store.commit(Map.of());
                }
            }
            LegalHolds holds = LegalHolds.inFile(data.resolve("legal-holds.json"), audit, clock);
            IndexerConfig.Retention config = new IndexerConfig.Retention(30, Map.of("short", 1), Duration.ofHours(1));
            Retention retention = new Retention(store, config, holds, audit, new IndexerMetrics(registry), clock);
            try (IndexerServer server = new IndexerServer(
                    new InetSocketAddress("127.0.0.1", 0),
                    new StatusHandler(new StageOffsets(clock), store::openShards, new WriteFailures(), Map::of),
                    new HoldsHandler(
                            holds,
                            List.of(HoldsHandler.sha256(KEY)),
                            new AuthFailures(AuthFailures.Policy.DEFAULT, System::nanoTime)),
                    new dev.logpipe.indexer.http.ArchivesHandler(
                            java.util.Optional.empty(),
                            List.of(HoldsHandler.sha256(KEY)),
                            new AuthFailures(AuthFailures.Policy.DEFAULT, System::nanoTime)),
                    registry,
                    () -> true)) {
                server.start();
                String url = "http://127.0.0.1:" + server.address().getPort() + "/api/v1/admin/legal-holds";
                String body = "{\"tenant_id\":\"globex\",\"from\":\"" + TODAY.minusDays(41) + "T00:00:00Z\",\"to\":\""
                        + TODAY.minusDays(39) + "T00:00:00Z\",\"reason\":\"case 42\",\"who\":\"legal@globex\"}";
                assertThat(post(url, null, body).statusCode()).isEqualTo(401);
                assertThat(post(url, "wrong", body).statusCode()).isEqualTo(401);
                assertThat(post(url, KEY, "{\"tenant_id\":\"globex\"}").statusCode())
                        .isEqualTo(400);
                HttpResponse<String> created = post(url, KEY, body);
                assertThat(created.statusCode()).isEqualTo(201);
                String id = JSON.readTree(created.body()).get("id").asText();
                assertThat(JSON.readTree(get(url, KEY).body()).get("holds")).hasSize(1);

                assertThat(retention.run()).isEqualTo(2); // acme's old shard and short's 2-day-old dead letters
                ShardLayout layout = new ShardLayout(data);
                assertThat(Files.exists(layout.shardDir(acmeOld))).isFalse();
                assertThat(Files.exists(layout.shardDir(shortLived))).isFalse();
                assertThat(Files.exists(layout.shardDir(acmeRecent))).isTrue();
                assertThat(Files.exists(layout.shardDir(globexOld)))
                        .as("kept by the hold")
                        .isTrue();

                HttpResponse<String> removed = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(url + "/" + id))
                                        .header("Authorization", "Bearer " + KEY)
                                        .DELETE()
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                assertThat(removed.statusCode()).isEqualTo(200);
                assertThat(retention.run()).isEqualTo(1);
                assertThat(Files.exists(layout.shardDir(globexOld))).isFalse();
            }
        }
        List<JsonNode> lines = Files.readAllLines(auditFile).stream()
                .map(l -> {
                    try {
                        return JSON.readTree(l);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                })
                .toList();
        assertThat(lines)
                .extracting(l ->
                        l.get("action").asText() + ":" + l.path("tenant_id").asText())
                .containsExactly(
                        "legal_hold_added:globex",
                        "shard_deleted:acme",
                        "shard_deleted:short",
                        "legal_hold_removed:globex",
                        "shard_deleted:globex");
        assertThat(registry.scrape()).contains("logpipe_indexer_retention_shards_held_total 1.0");
        // the holds survive a restart (atomic file); a corrupt file stops startup naming it
        Files.writeString(data.resolve("legal-holds.json"), "{not json");
        try (AuditLog audit = new AuditLog(auditFile, InstantSource.fixed(NOW))) {
            Assertions.assertThatThrownBy(
                            () -> LegalHolds.inFile(data.resolve("legal-holds.json"), audit, InstantSource.fixed(NOW)))
                    .hasMessageContaining("legal-holds.json is corrupt");
        }
    }

    private static HttpResponse<String> post(String url, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String url, String key) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer " + key)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
