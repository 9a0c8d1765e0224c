package dev.logpipe.indexer.e2e;

import static dev.logpipe.indexer.IndexerFixture.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What a damaged or a newer shard on disk does to startup (docs/indexer.md#shards-on-disk). */
@Integration
class IndexerStartupTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    static final Duration WAIT = Duration.ofSeconds(60);
    static final String MOVE_ASIDE = "index:\n  ram_buffer: 32MiB\n  on_corrupt_shard: move_aside\n";

    @TempDir
    Path data;

    private ShardId indexFiveRecords(String prefix) throws Exception {
        KAFKA.createTopic(prefix + ".records", 1);
        KAFKA.createTopic(prefix + ".dead-letter", 1);
        Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (KafkaProducer<byte[], byte[]> p = IndexerFixture.producer(KAFKA.bootstrapServers());
                Indexer indexer = IndexerFixture.start(KAFKA.bootstrapServers(), prefix, data, "", Clock.systemUTC())) {
            for (int i = 0; i < 5; i++) {
                IndexerFixture.send(p, prefix + ".records", Lines.record("acme", "id-" + i, "hello", t));
            }
            await().atMost(WAIT)
                    .until(() -> indexer.stages().snapshot().stream()
                                    .mapToLong(s -> s.committed())
                                    .sum()
                            == 5);
        }
        return ShardId.records("acme", LocalDate.ofInstant(t, ZoneOffset.UTC));
    }

    @Test
    void aCorruptShardStopsStartupNamingItAndWithMoveAsideIsRebuiltFromKafka() throws Exception {
        ShardId shard = indexFiveRecords("corrupt");
        ShardLayout layout = new ShardLayout(data);
        Files.writeString(layout.metadataFile(shard), "{\"format\": 1, \"kind\": ");

        assertThatThrownBy(() -> IndexerFixture.start(KAFKA.bootstrapServers(), "corrupt", data, "", Clock.systemUTC()))
                .hasMessageContaining(layout.shardDir(shard).toString())
                .hasMessageContaining("on_corrupt_shard: move_aside");
        assertThat(layout.metadataFile(shard)).exists();

        try (Indexer indexer = IndexerFixture.start(
                KAFKA.bootstrapServers(), "corrupt", data, "", Clock.systemUTC(), "", MOVE_ASIDE)) {
            await().atMost(WAIT).until(() -> count(indexer.store(), List.of(shard), "acme", "*:*") == 5);
        }
        try (Stream<Path> aside = Files.walk(data.resolve("corrupt"))) {
            assertThat(aside.filter(f -> f.getFileName().toString().equals("shard.json")))
                    .as("the damaged shard is kept aside, not deleted")
                    .hasSize(1);
        }
    }

    @Test
    void aShardOfANewerFormatStopsStartupEvenWithMoveAsideAndStaysWhereItIs() throws Exception {
        ShardId shard = indexFiveRecords("newer");
        ShardLayout layout = new ShardLayout(data);
        Path file = layout.metadataFile(shard);
        String json = Files.readString(file);
        Files.writeString(
                file,
                json.replace("\"format\" : " + ShardMetadata.FORMAT, "\"format\" : " + (ShardMetadata.FORMAT + 1)));

        assertThatThrownBy(() -> IndexerFixture.start(
                        KAFKA.bootstrapServers(), "newer", data, "", Clock.systemUTC(), "", MOVE_ASIDE))
                .isInstanceOf(ShardMetadata.NewerFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("newer logpipe");
        assertThat(file).exists();
        assertThat(data.resolve("corrupt")).doesNotExist();
    }
}
