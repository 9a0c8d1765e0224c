package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.Integration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariant I3 under crashes: an indexer child JVM is killed with SIGKILL at least 10 times at random points, half of
 * them inside a commit (between the Lucene commit and the Kafka commit), while records stream in, some of them
 * replayed. At the end the index holds exactly the distinct (tenant, record_id) pairs produced: none missing, none
 * twice.
 */
@Integration
class IndexerCrashLoopTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final ObjectMapper JSON = new ObjectMapper();
    static final String COMMIT_LINE = PausedAfterEngineCommit.LINE;

    @TempDir
    Path work;

    @Test
    void killNineLoopLosesNothingAndDuplicatesNothing() throws Exception {
        KAFKA.createTopic("crash.records", 3);
        KAFKA.createTopic("crash.dead-letter", 1);
        Path data = work.resolve("data");
        int port = FreePort.pick();
        Path config = work.resolve("indexer.yaml");
        // Static membership: a restarted indexer takes its partitions back at once instead of after a session timeout.
        Files.writeString(
                config,
                IndexerFixture.yaml(KAFKA.bootstrapServers(), "crash", data, "")
                        .replace("listen: 127.0.0.1:0", "listen: 127.0.0.1:" + port)
                        .replace(
                                "  group_id: crash-indexer\n",
                                "  group_id: crash-indexer\n  properties:\n"
                                        + "    group.instance.id: crash-indexer-1\n    session.timeout.ms: \"10000\"\n"));
        Set<String> produced = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        Random random = new Random(42);
        Thread producer = new Thread(() -> produce(produced, producing), "crash-producer");
        producer.start();
        int kills = 0;
        try {
            for (int run = 0; run < 10; run++) {
                try (ChildJvm child = start(run, config)) {
                    child.awaitStderr("indexer ready", Duration.ofSeconds(60));
                    if (run % 2 == 0) { // inside a commit: after the Lucene commit, before the Kafka commit
                        int before = occurrences(child.stderr(), COMMIT_LINE);
                        await().atMost(Duration.ofSeconds(60))
                                .pollInterval(Duration.ofMillis(5))
                                .until(() -> occurrences(child.stderr(), COMMIT_LINE) > before);
                    } else {
                        // sleep: kill point: random, nothing is awaited
                        Thread.sleep(200 + random.nextInt(1500));
                    }
                    assertThat(child.kill()).isEqualTo(137);
                    kills++;
                }
            }
        } finally {
            producing.set(false);
            producer.join();
        }
        assertThat(kills).isGreaterThanOrEqualTo(10);
        assertThat(produced).hasSizeGreaterThan(1000);
        try (ChildJvm last = start(99, config)) {
            last.awaitStderr("indexer ready", Duration.ofSeconds(60));
            Map<String, Long> end = endOffsets();
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> caughtUp(port, end));
            assertThat(last.terminate(Duration.ofSeconds(60))).isEqualTo(143);
        }
        Set<String> indexed = new HashSet<>();
        long docs = 0;
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), Clock.systemUTC())) {
            List<ShardId> shards = store.shards(ShardKind.RECORDS);
            LiveShards reads = new LiveShards(store);
            for (String tenant : List.of("acme", "globex")) {
                docs += StoreReads.count(reads, shards, tenant, "*:*");
                After after = null;
                do {
                    StoreReads.Page page = StoreReads.page(reads, shards, tenant, "", after, 5000);
                    page.hits().forEach(h -> indexed.add(tenant + "/" + h.recordId()));
                    after = page.next();
                } while (after != null);
            }
        }
        assertThat(indexed).as("missing: some produced pairs are not indexed").containsAll(produced);
        assertThat(produced)
                .as("unexpected: pairs indexed that were never produced")
                .containsAll(indexed);
        assertThat(docs).as("no pair is indexed twice").isEqualTo(produced.size());
    }

    private ChildJvm start(int run, Path config) {
        return ChildJvm.start(
                work,
                "indexer-" + run,
                List.of("-Xmx256m"),
                CrashLoopIndexerMain.class.getName(),
                List.of("--config", config.toString()));
    }

    /** The records topic's end offsets, read by the test itself (not from the indexer's status). */
    private static Map<String, Long> endOffsets() {
        Map<String, Long> out = new HashMap<>();
        try (var c = new KafkaConsumer<>(
                Map.<String, Object>of("bootstrap.servers", KAFKA.bootstrapServers()),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = List.of(0, 1, 2).stream()
                    .map(i -> new TopicPartition("crash.records", i))
                    .toList();
            c.endOffsets(tps).forEach((tp, v) -> out.put(tp.topic() + "-" + tp.partition(), v));
        }
        return out;
    }

    private static boolean caughtUp(int port, Map<String, Long> end) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            JsonNode parts = JSON.readTree(r.body()).get("partitions");
            for (Map.Entry<String, Long> e : end.entrySet()) {
                JsonNode s = parts.get(e.getKey());
                if (s == null || s.get("committed").get("offset").asLong() < e.getValue()) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Messages of 20 records for two tenants; every fifth message replays an earlier one (same ids). */
    private void produce(Set<String> produced, AtomicBoolean producing) {
        Instant t = Instant.now();
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers())) {
            int seq = 0;
            while (producing.get() && seq < 1500) { // bounded: the final catch-up stays short
                int m = seq % 5 == 4 ? seq - 3 : seq;
                String tenant = m % 2 == 0 ? "acme" : "globex";
                StringBuilder v = new StringBuilder();
                List<String> pairs = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String id = "m" + m + "-" + i;
                    v.append(Lines.record(tenant, id, "crash loop " + m + " " + i, t.plusMillis(m)));
                    pairs.add(tenant + "/" + id);
                }
                p.send(
                        new ProducerRecord<>(
                                "crash.records",
                                ("k" + m).getBytes(),
                                v.toString().getBytes()),
                        (md, e) -> {
                            if (e == null) {
                                produced.addAll(pairs);
                            }
                        });
                seq++;
                // sleep: pacing: the producer spreads its messages over the kills
                Thread.sleep(15);
            }
            p.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int occurrences(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
