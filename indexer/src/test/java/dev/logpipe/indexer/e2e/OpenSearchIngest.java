package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.indexer.IndexerFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the OpenSearch crash and outage tests share: a producer of records for two tenants with replays, the topic's end
 * offsets read by the test itself, an indexer's status over HTTP, and the check that the node holds exactly the pairs
 * produced.
 */
final class OpenSearchIngest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> TENANTS = List.of("acme", "globex");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private OpenSearchIngest() {}

    /**
     * Up to {@code messages} messages of 20 records, alternately for the two tenants, every fifth replaying an earlier
     * one (the same ids); a pair is added to {@code produced} once Kafka acknowledged its message.
     */
    static void produce(String bootstrap, String topic, Set<String> produced, AtomicBoolean producing, int messages) {
        Instant t = Instant.now();
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(bootstrap)) {
            for (int seq = 0; producing.get() && seq < messages; seq++) {
                int m = seq % 5 == 4 ? seq - 3 : seq;
                String tenant = TENANTS.get(m % 2);
                StringBuilder v = new StringBuilder();
                List<String> pairs = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String id = "m" + m + "-" + i;
                    v.append(Lines.record(tenant, id, "ingest " + m + " " + i, t.plusMillis(m)));
                    pairs.add(tenant + "/" + id);
                }
                p.send(
                        new ProducerRecord<>(
                                topic, ("k" + m).getBytes(), v.toString().getBytes()),
                        (md, e) -> {
                            if (e == null) {
                                produced.addAll(pairs);
                            }
                        });
                // sleep: pacing: the producer spreads its messages over the run
                Thread.sleep(10);
            }
            p.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The topic's end offsets, keyed {@code topic-partition} as the status API keys them. */
    static Map<String, Long> endOffsets(String bootstrap, String topic, int partitions) {
        Map<String, Long> out = new HashMap<>();
        try (var c = new KafkaConsumer<>(
                Map.<String, Object>of("bootstrap.servers", bootstrap),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = IntStream.range(0, partitions)
                    .mapToObj(i -> new TopicPartition(topic, i))
                    .toList();
            c.endOffsets(tps).forEach((tp, v) -> out.put(tp.topic() + "-" + tp.partition(), v));
        }
        return out;
    }

    static JsonNode status(int port) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** Whether the indexers on these ports together committed every partition up to {@code end}. */
    static boolean committedUpTo(List<Integer> ports, Map<String, Long> end) {
        Map<String, Long> committed = new HashMap<>();
        for (int port : ports) {
            try {
                status(port)
                        .path("partitions")
                        .fields()
                        .forEachRemaining(e -> committed.merge(
                                e.getKey(),
                                e.getValue().path("committed").path("offset").asLong(-1),
                                Math::max));
            } catch (Exception unreachable) {
                // a killed indexer
            }
        }
        return end.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue());
    }

    /** The node holds one document per pair produced (counted) and no other pair (listed by record id). */
    static void assertIndexedExactly(OpenSearchExtension.Node node, String prefix, Set<String> produced)
            throws Exception {
        assertThat(node.send("POST", "/" + prefix + "-records-*/_refresh", null).status())
                .isEqualTo(200);
        Set<String> indexed = new HashSet<>();
        long docs = 0;
        for (String tenant : TENANTS) {
            OpenSearchExtension.Answer a = node.send(
                    "POST",
                    "/" + prefix + "-records-" + tenant + "-*/_search",
                    Map.of(
                            "size",
                            10_000,
                            "track_total_hits",
                            true,
                            "_source",
                            false,
                            "docvalue_fields",
                            List.of("record_id", "tenant_id"),
                            "query",
                            Map.of("match_all", Map.of())));
            assertThat(a.status()).as("%s", a.body()).isEqualTo(200);
            docs += a.body().path("hits").path("total").path("value").asLong();
            for (JsonNode hit : a.body().path("hits").path("hits")) {
                JsonNode fields = hit.path("fields");
                assertThat(fields.path("tenant_id").path(0).asText()).isEqualTo(tenant);
                indexed.add(tenant + "/" + fields.path("record_id").path(0).asText());
            }
        }
        assertThat(indexed).as("missing: some produced pairs are not indexed").containsAll(produced);
        assertThat(produced)
                .as("unexpected: pairs indexed that were never produced")
                .containsAll(indexed);
        assertThat(docs).as("no pair is indexed twice").isEqualTo(produced.size());
    }
}
