package dev.logpipe.indexer;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.indexer.http.HoldsHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The YAML of a test indexer, an indexer in this JVM, and small clients for its HTTP port and for Kafka. */
public final class IndexerFixture {
    public static final String ADMIN_KEY = "admin-key-0123456789";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private IndexerFixture() {}

    public static String yaml(String bootstrap, String prefix, Path data, String extra) {
        return """
                listen: 127.0.0.1:0
                data_dir: %s
                kafka:
                  bootstrap_servers: %s
                  topic: %s.records
                  dead_letter_topic: %s.dead-letter
                  group_id: %s-indexer
                commit:
                  interval: 200ms
                refresh:
                  interval: 100ms
                index:
                  ram_buffer: 32MiB
                admin:
                  api_key_sha256: [%s]
                """.formatted(data, bootstrap, prefix, prefix, prefix, HoldsHandler.sha256(ADMIN_KEY)) + extra;
    }

    public static Indexer start(String bootstrap, String prefix, Path data, String extra, InstantSource clock)
            throws Exception {
        IndexerConfig c = new IndexerConfigLoader().parse(yaml(bootstrap, prefix, data, extra), "test");
        return Indexer.start(c, clock);
    }

    /**
     * Like {@link #start(String, String, Path, String, InstantSource)}, with lines added to the {@code kafka} section
     * and whole top-level sections ({@code "commit:\n  max_records: 5\n"}) replacing the test defaults.
     */
    public static Indexer start(
            String bootstrap,
            String prefix,
            Path data,
            String extra,
            InstantSource clock,
            String kafkaLines,
            String... sections)
            throws Exception {
        return start(UnaryOperator.identity(), bootstrap, prefix, data, extra, clock, kafkaLines, sections);
    }

    /** As {@link #start(String, String, Path, String, InstantSource, String, String...)}, the store decorated. */
    public static Indexer start(
            UnaryOperator<ShardStore> decorate,
            String bootstrap,
            String prefix,
            Path data,
            String extra,
            InstantSource clock,
            String kafkaLines,
            String... sections)
            throws Exception {
        String yaml = yaml(bootstrap, prefix, data, extra)
                .replace("  group_id: " + prefix + "-indexer\n", "  group_id: " + prefix + "-indexer\n" + kafkaLines);
        for (String section : sections) {
            String key = section.substring(0, section.indexOf('\n') + 1);
            yaml = yaml.replaceAll("(?m)^" + Pattern.quote(key.strip()) + "\\n(  .*\\n)*", "") + section;
        }
        return Indexer.start(new IndexerConfigLoader().parse(yaml, "test"), clock, decorate);
    }

    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        5),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    public static void send(KafkaProducer<byte[], byte[]> p, String topic, String value) throws Exception {
        p.send(new ProducerRecord<>(topic, null, value.getBytes(StandardCharsets.UTF_8)))
                .get();
    }

    public static long count(LuceneStore store, List<ShardId> shards, String tenant, String query) throws Exception {
        return StoreReads.count(new LiveShards(store), shards, tenant, query);
    }

    public static HttpResponse<String> get(Indexer indexer, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(indexer, path)).timeout(Duration.ofSeconds(10));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    public static HttpResponse<String> send(Indexer indexer, String method, String path, String key, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(indexer, path))
                .timeout(Duration.ofSeconds(10))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(Indexer indexer, String path) {
        return URI.create("http://127.0.0.1:" + indexer.address().getPort() + path);
    }
}
