package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.archive.tier.CatalogEntry;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.indexer.ArchiveTier;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.cli.ArchivesCommand;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.indexer.http.HoldsHandler;
import dev.logpipe.testkit.Integration;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The archive tier as the processes run it: a real indexer (Kafka in, Lucene shards out) archives a closed day on its
 * schedule, and a separate query process on the same data directory, started before, follows the indexer's catalog
 * and keeps answering with every record of the day, once; late records for the archived day are searched beside the
 * archive and absorbed by the next run.
 */
@Integration
class ArchiveEndToEndTest {
    private static final String ADMIN_KEY = "archive-admin-key-0123456789";
    /** The day the tests archive: three days back, so archive_after 1 makes it due at once. */
    private static final Instant DAY_START =
            Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(3));
    /** Every "payment" record of that day. */
    private static final String SEARCH =
            "/api/v1/search?limit=1000&from=" + enc(DAY_START.minusSeconds(60).toString()) + "&to="
                    + enc(DAY_START.plus(Duration.ofDays(1)).toString()) + "&q=" + enc("payment");

    /** Waits until acme's day is catalogued and its hot shard deleted. */
    private static void awaitArchived(ArchiveTier tier, LocalDate day) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> tier.catalog().entry("acme", day).isPresent()
                        && tier.catalog().entry("acme", day).get().coveredHot() == null);
    }

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path data;

    @Test
    void aClosedDayMovesToTheArchiveWhileAQueryProcessBesideTheIndexerKeepsFindingEveryRecordOnce() throws Exception {
        String yaml = yaml("ae", "");
        Instant dayStart = DAY_START;
        LocalDate day = LocalDate.ofInstant(dayStart, ZoneOffset.UTC);
        String search = SEARCH;
        try (Indexer indexer = Indexer.start(new IndexerConfigLoader().parse(yaml, "test"), Clock.systemUTC());
                KafkaProducer<byte[], byte[]> producer = producer();
                QueryProcess query = QueryFixture.start(data, "", Clock.systemUTC())) {
            ArchiveTier tier = indexer.archive().orElseThrow();
            send(producer, records(dayStart, 0, 300));

            awaitArchived(tier, day);
            CatalogEntry first = tier.catalog().entry("acme", day).get();
            assertThat(first.records()).isEqualTo(150);
            assertThat(indexer.store().shards(ShardKind.RECORDS))
                    .as("acme's hot day is gone, globex (archive_after: 0) keeps its own")
                    .containsExactly(ShardId.records("globex", day));
            assertThat(Files.exists(data.resolve("archive").resolve(first.key())))
                    .isTrue();
            assertThat(tier.catalog().entries("globex")).isEmpty();

            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ids(json(get(query, search, ACME_KEY))).size() == 150);
            assertThat(ids(json(get(query, search, ACME_KEY)))).isEqualTo(expectedIds("acme", 0, 300));
            JsonNode tiers = json(get(query, "/api/v1/status", ACME_KEY)).get("tiers");
            assertThat(tiers.get("hot").get("days").asInt()).isZero();
            assertThat(tiers.get("archived").get("days").asInt()).isEqualTo(1);
            assertThat(tiers.get("archived").get("records").asLong()).isEqualTo(150);
            assertThat(tiers.get("archived").get("bytes").asLong()).isEqualTo(first.bytes());
            assertThat(tiers.get("archived").get("newest_day").asText()).isEqualTo(day.toString());
            JsonNode globexTiers =
                    json(get(query, "/api/v1/status", GLOBEX_KEY)).get("tiers");
            assertThat(globexTiers.get("hot").get("days").asInt()).isEqualTo(1);
            assertThat(globexTiers.get("archived").get("days").asInt())
                    .as("never another tenant's")
                    .isZero();
            assertThat(ids(json(get(query, search, GLOBEX_KEY)))).isEqualTo(expectedIds("globex", 0, 300));

            send(producer, records(dayStart, 300, 310)); // late: 5 for acme's archived day
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tier.catalog()
                                            .entry("acme", day)
                                            .map(CatalogEntry::generation)
                                            .orElse(0)
                                    == 2
                            && tier.catalog().entry("acme", day).get().coveredHot() == null);
            assertThat(tier.catalog().entry("acme", day).get().records()).isEqualTo(155);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() ->
                            assertThat(ids(json(get(query, search, ACME_KEY)))).isEqualTo(expectedIds("acme", 0, 310)));
            assertThat(json(get(query, search, ACME_KEY)).get("hits")).hasSize(155);
            assertThat(indexer.registry().scrape())
                    .contains("logpipe_indexer_archive_days_total 2.0")
                    .contains("logpipe_indexer_archive_records_total 305.0");
        }
    }

    @Test
    void anOperatorRestoresAnArchivedDayIntoTheHotTierAndArchivesItAgainFromTheCommandLine() throws Exception {
        String yaml = yaml("op", """
                admin:
                  api_key_sha256: [%s]
                """.formatted(HoldsHandler.sha256(ADMIN_KEY)));
        Instant dayStart = DAY_START;
        LocalDate day = LocalDate.ofInstant(dayStart, ZoneOffset.UTC);
        String search = SEARCH;
        try (Indexer indexer = Indexer.start(new IndexerConfigLoader().parse(yaml, "test"), Clock.systemUTC());
                KafkaProducer<byte[], byte[]> producer = producer();
                QueryProcess query = QueryFixture.start(data, "", Clock.systemUTC())) {
            ArchiveTier tier = indexer.archive().orElseThrow();
            String url = "http://127.0.0.1:" + indexer.address().getPort();
            send(producer, "op.records", records(dayStart, 0, 300));
            awaitArchived(tier, day);

            Cli list = cli(url, ADMIN_KEY, "list", "--tenant", "acme");
            assertThat(list.code()).isZero();
            JsonNode listed = QueryFixture.JSON.readTree(list.out()).get("archives");
            assertThat(listed).hasSize(1);
            assertThat(listed.get(0).get("day").asText()).isEqualTo(day.toString());
            JsonNode capped = QueryFixture.JSON.readTree(
                    cli(url, ADMIN_KEY, "list", "--limit", "1").out());
            assertThat(capped.get("total").asInt()).isEqualTo(1);
            assertThat(capped.get("truncated").asBoolean()).isFalse();
            Cli tooMany = cli(url, ADMIN_KEY, "list", "--limit", "10001");
            assertThat(tooMany.code()).isEqualTo(1);
            assertThat(tooMany.err()).contains("400").contains("limit");
            assertThat(listed.get(0).get("records").asLong()).isEqualTo(150);

            Cli restore =
                    cli(url, ADMIN_KEY, "restore", "--tenant", "acme", "--day", day.toString(), "--keep-days", "3");
            assertThat(restore.code()).as(restore.err()).isZero();
            assertThat(restore.out()).contains("restore requested");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tier.catalog().entry("acme", day).isEmpty());
            assertThat(indexer.store().shards(ShardKind.RECORDS)).contains(ShardId.records("acme", day));
            assertThat(ids(json(get(query, search, ACME_KEY)))).isEqualTo(expectedIds("acme", 0, 300));
            JsonNode tiers = json(get(query, "/api/v1/status", ACME_KEY)).get("tiers");
            assertThat(tiers.get("hot").get("days").asInt()).isEqualTo(1);
            assertThat(tiers.get("archived").get("days").asInt()).isZero();
            assertThat(cli(url, ADMIN_KEY, "list").out()).contains("\"kept_hot\":[{\"tenant_id\":\"acme\"");
            Awaitility.await()
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> tier.catalog().entry("acme", day).isEmpty()); // kept hot: not archived again

            assertThat(cli(url, ADMIN_KEY, "archive", "--tenant", "acme", "--day", day.toString())
                            .code())
                    .isZero();
            awaitArchived(tier, day);
            assertThat(indexer.store().shards(ShardKind.RECORDS)).doesNotContain(ShardId.records("acme", day));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(ids(json(get(query, search, ACME_KEY)))).isEqualTo(expectedIds("acme", 0, 300)));

            Cli notArchived = cli(url, ADMIN_KEY, "restore", "--tenant", "globex", "--day", day.toString());
            assertThat(notArchived.code()).isEqualTo(1);
            assertThat(notArchived.err()).contains("404").contains("globex has no archive");
            Cli notClosed = cli(
                    url,
                    ADMIN_KEY,
                    "archive",
                    "--tenant",
                    "globex",
                    "--day",
                    LocalDate.now(ZoneOffset.UTC).toString());
            assertThat(notClosed.code()).isEqualTo(1);
            assertThat(notClosed.err()).containsAnyOf("409", "404");
            Cli wrongKey = cli(url, "not-the-admin-key", "list");
            assertThat(wrongKey.code()).isEqualTo(1);
            assertThat(wrongKey.err()).contains("401");
            assertThat(cli(url, null, "list").code())
                    .as("no key in the environment")
                    .isEqualTo(2);

            String audit = Files.readString(data.resolve("audit").resolve("indexer-audit.jsonl"));
            assertThat(audit)
                    .contains("\"restore_requested\"")
                    .contains("\"archive_restored\"")
                    .contains("\"archive_requested\"")
                    .contains("\"who\":\"admin:");
            assertThat(indexer.registry().scrape()).contains("logpipe_indexer_archive_restored_total 1.0");
        }
    }

    /** What the command printed and its exit code. */
    private record Cli(int code, String out, String err) {}

    private static Cli cli(String url, String key, String... args) {
        ArchivesCommand command = new ArchivesCommand(name -> name.equals("LOGPIPE_ADMIN_KEY") ? key : null);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine line = new CommandLine(command).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("--indexer", url));
        all.addAll(List.of(args));
        int code = line.execute(all.toArray(String[]::new));
        return new Cli(code, out.toString(), err.toString());
    }

    /** The indexer's configuration: archive_after 1 for every tenant but globex (0), checks every 300 ms. */
    private String yaml(String prefix, String extra) throws Exception {
        KAFKA.createTopic(prefix + ".records", 2);
        KAFKA.createTopic(prefix + ".dead-letter", 1);
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
                retention:
                  archive_after: 1
                  tenants:
                    - id: globex
                      archive_after: 0
                archive:
                  grace: 0s
                  check_interval: 300ms
                  block_bytes: 16KiB
                  restore_settle: 1s
                """.formatted(data, KAFKA.bootstrapServers(), prefix, prefix, prefix) + extra;
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        KAFKA.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String lines) throws Exception {
        send(producer, "ae.records", lines);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String lines) throws Exception {
        producer.send(new ProducerRecord<>(topic, lines.getBytes(StandardCharsets.UTF_8)))
                .get();
    }

    /** Records {@code from..to-1} of the day, alternating acme and globex, several with identical timestamps. */
    private static String records(Instant dayStart, int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            Instant t = dayStart.plusSeconds(3600 + (i / 3) * 60L);
            b.append("{\"schema_version\":3,\"record_id\":\"a-")
                    .append(i)
                    .append("\",\"tenant_id\":\"")
                    .append(i % 2 == 0 ? "acme" : "globex")
                    .append("\",\"event_time\":\"")
                    .append(t)
                    .append("\",\"observed_time\":\"")
                    .append(t)
                    .append("\",\"level\":\"ERROR\",\"message\":\"payment failed for order CO-")
                    .append(i)
                    .append("\"}\n");
        }
        return b.toString();
    }

    private static Set<String> expectedIds(String tenant, int from, int to) {
        Set<String> out = new TreeSet<>();
        for (int i = from; i < to; i++) {
            if ((i % 2 == 0) == tenant.equals("acme")) {
                out.add("a-" + i);
            }
        }
        return out;
    }

    /** The hits' record ids; a duplicate fails (every record once). */
    private static Set<String> ids(JsonNode answer) {
        List<String> all = new ArrayList<>();
        answer.get("hits").forEach(h -> all.add(h.get("record_id").asText()));
        Set<String> unique = new TreeSet<>(all);
        assertThat(unique).as("no record twice").hasSize(all.size());
        return unique;
    }
}
