package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.Integration;
import dev.logpipe.testkit.PrometheusScrape;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24 item 1 through real components: an indexer child JVM with a 256 MB heap reads, from a real broker, 200
 * records of one tenant (~4 MB) with 1,000 distinct field names each, 200,000 names in all. Before the cap on
 * distinct names per shard it ran out of memory (and, on a restart, again on the same data); now it indexes the first
 * 1,000 names, keeps every record whole in its source, counts the rest, and its live heap stays small.
 */
@Integration
class FieldExplosionTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path work;

    @Test
    void distinctFieldNamesOfOneTenantDoNotExhaustTheHeap() throws Exception {
        KAFKA.createTopic("fx.records", 1);
        KAFKA.createTopic("fx.dead-letter", 1);
        Path data = work.resolve("data");
        int port = FreePort.pick();
        Path config = work.resolve("indexer.yaml");
        Files.writeString(
                config,
                IndexerFixture.yaml(KAFKA.bootstrapServers(), "fx", data, "")
                        .replace("listen: 127.0.0.1:0", "listen: 127.0.0.1:" + port));
        Instant t = Instant.now();
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            for (int i = 0; i < 200; i++) {
                byte[] v = wide("attacker", "w" + i, i, t.plusMillis(i)).getBytes(StandardCharsets.UTF_8);
                bytes += v.length;
                p.send(new ProducerRecord<>("fx.records", v));
            }
            p.send(new ProducerRecord<>(
                    "fx.records",
                    Lines.record("bystander", "b1", "still here", t).getBytes(StandardCharsets.UTF_8)));
            p.flush();
        }
        assertThat(bytes).isGreaterThan(3_000_000);
        long first = run(config, port, "indexer-1");
        // The same data again from offset 0 (a new consumer group over the same shards): the same names are indexed
        // (taken from the index at open), and the heap stays as small.
        Files.writeString(config, Files.readString(config).replace("group_id: fx-indexer", "group_id: fx-replay"));
        long replay = run(config, port, "indexer-2");
        System.out.println("live heap after GC: first run " + first + ", replay " + replay);
        assertThat(first).isLessThan(64L << 20);
        assertThat(replay).isLessThan(64L << 20);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), Clock.systemUTC())) {
            ShardId shard = ShardId.records("attacker", LocalDate.ofInstant(t, ZoneOffset.UTC));
            List<ShardId> all = store.shards(ShardKind.RECORDS);
            assertThat(IndexerFixture.count(store, all, "attacker", "*:*")).isEqualTo(200);
            assertThat(IndexerFixture.count(store, all, "bystander", "*:*")).isEqualTo(1);
            assertThat(IndexerFixture.count(store, all, "attacker", "fields.r0.k1:v1"))
                    .isEqualTo(1);
            assertThat(IndexerFixture.count(store, all, "attacker", "fields.r0.k999:>998"))
                    .isEqualTo(1);
            assertThat(IndexerFixture.count(store, all, "attacker", "fields.r199.k1:v1"))
                    .isZero();
            // not indexed, but kept: the record as accepted
            assertThat(StoreReads.hits(new LiveShards(store), all, "attacker", "record_id:w199", 10))
                    .singleElement()
                    .satisfies(h -> assertThat(h.source())
                            .isEqualTo(wide("attacker", "w199", 199, t.plusMillis(199))
                                    .strip()));
            ShardMetadata m = store.metadata(shard).orElseThrow();
            assertThat(m.fields()).hasSize(1000).containsKey("r0.k999");
            assertThat(m.fieldsNotIndexed().records())
                    .as("199 records, each run")
                    .isEqualTo(2 * 199);
            assertThat(m.fieldsNotIndexed().values()).isEqualTo(2 * 199 * 1000);
            assertThat(m.fieldsNotIndexed().sample()).hasSize(ShardMetadata.NOT_INDEXED_SAMPLE);
        }
    }

    /**
     * The same attack spread over 30 days of the tenant's retention, with long names: 60 records of 1,000 names of
     * ~200 characters, two per day. The per-shard cap alone would index 30 shards x 1,000 names (~6 MB of names, and
     * each costs the writers far more); the tenant's budget ({@code index.max_field_name_bytes_per_tenant}, default
     * 8 MiB, a name costing its bytes plus 1 KiB) holds all its open shards together under it, and the live heap stays
     * small.
     */
    @Test
    void distinctFieldNamesSpreadOverThirtyDaysStayWithinTheTenantsBudget() throws Exception {
        KAFKA.createTopic("fx30.records", 1);
        KAFKA.createTopic("fx30.dead-letter", 1);
        Path data = work.resolve("data30");
        int port = FreePort.pick();
        Path config = work.resolve("indexer30.yaml");
        Files.writeString(
                config,
                IndexerFixture.yaml(KAFKA.bootstrapServers(), "fx30", data, "")
                        .replace("listen: 127.0.0.1:0", "listen: 127.0.0.1:" + port));
        Instant t = Instant.now();
        String pad = "p".repeat(190);
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            for (int i = 0; i < 60; i++) {
                StringBuilder f = new StringBuilder();
                for (int j = 0; j < 1000; j++) {
                    f.append(j == 0 ? "" : ",")
                            .append("\"d")
                            .append(i)
                            .append('.')
                            .append(pad)
                            .append(".k")
                            .append(j)
                            .append("\":")
                            .append(j);
                }
                Instant day = t.minus(Duration.ofDays(i % 30));
                String line = "{\"schema_version\":3,\"record_id\":\"d" + i + "\",\"event_time\":\"" + day
                        + "\",\"observed_time\":\"" + t + "\",\"tenant_id\":\"attacker\",\"message\":\"wide " + i
                        + "\",\"fields\":{" + f + "}}\n";
                p.send(new ProducerRecord<>("fx30.records", line.getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
        }
        long live;
        try (ChildJvm child = ChildJvm.start(
                work,
                "indexer-30",
                List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError"),
                "dev.logpipe.indexer.cli.IndexerCommand",
                List.of("--config", config.toString()))) {
            child.awaitStderr("indexer ready", Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        assertThat(child.isAlive())
                                .as("indexer alive; stdout:\n%s\nstderr:\n%s", child.stdout(), child.stderr())
                                .isTrue();
                        return committed(port, "fx30.records-0") >= 60;
                    });
            live = liveHeap(child.pid());
            assertThat(child.terminate(Duration.ofSeconds(30))).isEqualTo(143);
        }
        assertThat(live).as("live heap after GC").isLessThan(64L << 20);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), Clock.systemUTC())) {
            List<ShardId> all = store.shards(ShardKind.RECORDS);
            assertThat(all).hasSize(30);
            assertThat(IndexerFixture.count(store, all, "attacker", "*:*")).isEqualTo(60);
            long nameBytes = 0;
            for (ShardId s : all) {
                for (String name : store.metadata(s).orElseThrow().fields().keySet()) {
                    nameBytes += name.length() + 1024; // what the budget charges a name
                }
            }
            assertThat(nameBytes)
                    .as("bytes of names indexed over the tenant's 30 shards")
                    .isPositive()
                    .isLessThanOrEqualTo(StoreSettings.FieldNames.DEFAULT_BYTES_PER_TENANT);
        }
    }

    /** Runs an indexer child until it has committed everything; returns its live heap then. */
    private long run(Path config, int port, String name) throws Exception {
        try (ChildJvm child = ChildJvm.start(
                work,
                name,
                List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError"),
                "dev.logpipe.indexer.cli.IndexerCommand",
                List.of("--config", config.toString()))) {
            child.awaitStderr("indexer ready", Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        assertThat(child.isAlive())
                                .as("indexer alive; stdout:\n%s\nstderr:\n%s", child.stdout(), child.stderr())
                                .isTrue();
                        return committed(port, "fx.records-0") >= 201;
                    });
            JsonNode status = JSON.readTree(get(port, "/api/v1/status"));
            assertThat(status.path("fields_not_indexed").path("attacker").asLong())
                    .isEqualTo(199_000);
            assertThat(status.path("fields_not_indexed").has("bystander")).isFalse();
            assertThat(PrometheusScrape.parse(get(port, "/metrics"))
                            .counter("logpipe_indexer_fields_not_indexed_total{tenant=\"attacker\"}"))
                    .isEqualTo(199_000);
            long live = liveHeap(child.pid());
            assertThat(child.terminate(Duration.ofSeconds(30))).isEqualTo(143);
            return live;
        }
    }

    private static String get(int port, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static String wide(String tenant, String id, int i, Instant time) {
        StringBuilder f = new StringBuilder();
        for (int j = 0; j < 1000; j++) {
            f.append(j == 0 ? "" : ",")
                    .append("\"r")
                    .append(i)
                    .append(".k")
                    .append(j)
                    .append("\":");
            if (j % 3 == 0) {
                f.append(j);
            } else {
                f.append("\"v").append(j).append('"');
            }
        }
        return "{\"schema_version\":3,\"record_id\":\"" + id + "\",\"event_time\":\"" + time + "\",\"observed_time\":\""
                + time + "\",\"tenant_id\":\"" + tenant + "\",\"service\":\"billing\",\"level\":\"INFO\",\"message\":\""
                + "wide " + i + "\",\"fields\":{" + f + "}}\n";
    }

    private static long committed(int port, String partition) {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode s = JSON.readTree(r.body()).path("partitions").path(partition);
            return s.path("committed").path("offset").asLong();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The child's live heap: {@code jcmd GC.class_histogram} runs a full GC first and prints the total. */
    static long liveHeap(long pid) throws Exception {
        Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Path jcmd = java.resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        String total = out.lines()
                .filter(l -> l.startsWith("Total"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no total in\n" + out));
        return Long.parseLong(total.trim().split("\\s+")[2]);
    }
}
