package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.testkit.Integration;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The OpenSearch store's write side against a real OpenSearch 2.19 node. */
@Integration
@ExtendWith(OpenSearchExtension.class)
class OpenSearchStoreTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:02.017Z");
    static final LocalDate DAY = LocalDate.parse("2026-12-01");
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    OpenSearchExtension.Node node;
    OpenSearchSettings settings;

    @BeforeEach
    void prefix(OpenSearchExtension.Node node) {
        this.node = node;
        OpenSearchSettings local = OpenSearchSettings.local(URI.create(node.base()));
        this.settings = new OpenSearchSettings(
                local.hosts(),
                local.credential(),
                Optional.empty(),
                "t" + PREFIXES.incrementAndGet(), // each test its own indices and template
                1,
                0,
                Duration.ofSeconds(30), // nothing visible before a refresh the store asks for
                local.bulkBytes(),
                local.requestTimeout(),
                OpenSearchSettings.DEFAULT_BULK_CONCURRENCY);
    }

    static IndexRecord record(String tenant, String id, String message, Map<String, Object> fields) throws Exception {
        LogRecord.Builder b = LogRecord.builder(message)
                .recordId(id)
                .tenantId(tenant)
                .eventTime(T)
                .observedTime(T)
                .service("billing")
                .level(Level.ERROR);
        fields.forEach(b::field);
        byte[] line = CODEC.encode(b.build());
        return new IndexRecord(CODEC.decode(line), T, T, line, 0, line.length);
    }

    JsonNode search(String index, String query) throws Exception {
        OpenSearchExtension.Answer a = node.send(
                "POST",
                "/" + index + "/_search",
                Map.of("query", Map.of("query_string", Map.of("query", query)), "size", 100));
        assertThat(a.status()).as("%s", a.body()).isEqualTo(200);
        return a.body().path("hits");
    }

    @Test
    void aReplayedRecordIsOneDocumentAndItsSourceIsTheLineAsAccepted() throws Exception {
        ShardStore store = OpenSearchStore.open(settings);
        ShardId shard = ShardId.records("acme", DAY);
        IndexRecord first = record("acme", "id-1", "first try", Map.of());
        IndexRecord second = record("acme", "id-1", "order_id=CO-9931 timed out", Map.of("took_ms", 812));
        assertThat(store.write(shard, List.of(first)).rejections()).isEmpty();
        assertThat(store.write(shard, List.of(second)).rejections()).isEmpty();
        String index = ((OpenSearchStore) store).location(shard);
        assertThat(search(index, "*").path("total").path("value").asLong())
                .as("not visible before a refresh")
                .isZero();
        store.refresh();
        JsonNode hits = search(index, "*");
        assertThat(hits.path("total").path("value").asLong()).isEqualTo(1);
        assertThat(hits.path("hits").path(0).path("_source").path("source").asText())
                .isEqualTo(new String(second.source(), StandardCharsets.UTF_8));
        assertThat(search(index, "message:9931").path("total").path("value").asLong())
                .as("the log analyzer's parts")
                .isEqualTo(1);
        assertThat(search(index, "fields.took_ms\\#long:>500")
                        .path("total")
                        .path("value")
                        .asLong())
                .as("a whole number is kept as a number")
                .isEqualTo(1);
    }

    @Test
    void twoTenantsWithOneRecordIdAreTwoIndicesAndListedByKind() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId acme = ShardId.records("acme", DAY);
        ShardId other = ShardId.records("Zeta Corp", DAY.plusDays(1));
        store.write(acme, List.of(record("acme", "same", "of acme", Map.of())));
        store.write(other, List.of(record("Zeta Corp", "same", "of zeta", Map.of())));
        ShardId letters = ShardId.deadLetters("acme", DAY);
        byte[] json = "{\"reason\":\"SCHEMA_INVALID\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(store.writeDeadLetters(
                        letters,
                        List.of(new DeadLetterEntry(
                                "dl-1", "acme", "SCHEMA_INVALID", "not an object", "{{", T, json, 0, json.length))))
                .isEmpty();
        store.refresh();
        assertThat(store.shards(ShardKind.RECORDS)).containsExactlyInAnyOrder(acme, other);
        assertThat(store.shards(ShardKind.DEAD_LETTERS)).containsExactly(letters);
        assertThat(store.location(other)).isEqualTo(settings.indexPrefix() + "-records-_5aeta_20_43orp-2026.12.02");
        assertThat(search(store.location(acme), "*")
                        .path("hits")
                        .path(0)
                        .path("_source")
                        .path("source")
                        .asText())
                .contains("of acme");
        assertThat(search(store.location(letters), "reason:SCHEMA_INVALID")
                        .path("total")
                        .path("value")
                        .asLong())
                .isEqualTo(1);
    }

    @Test
    void aTenantWhoseNameIsTooLongForAnIndexNameIsCutAndStillListed() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        String tenant = "Ü".repeat(40); // 240 characters as a directory name: more than an index name holds
        ShardId shard = ShardId.records(tenant, DAY);
        store.write(shard, List.of(record(tenant, "r-1", "long tenant", Map.of())));
        assertThat(store.location(shard)).hasSize(IndexNames.MAX_INDEX_BYTES).contains("_h");
        assertThat(store.shards(ShardKind.RECORDS)).containsExactly(shard);
    }

    @Test
    void shardsWrittenTogetherGetTheirOwnRefusalsByTheirOwnPositions() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId acme = ShardId.records("acme", DAY);
        ShardId zeta = ShardId.records("zeta", DAY);
        Map<String, Object> some = new LinkedHashMap<>();
        Map<String, Object> flood = new LinkedHashMap<>();
        for (int i = 0; i < 600; i++) { // the second takes zeta's index past its 1,000 fields
            some.put("f" + i, "v");
            flood.put("g" + i, "v");
        }
        Map<ShardId, List<IndexRecord>> batches = new LinkedHashMap<>();
        batches.put(acme, List.of(record("acme", "a-1", "one", Map.of()), record("acme", "a-2", "two", Map.of())));
        batches.put(
                zeta,
                List.of(
                        record("zeta", "z-1", "fine", some),
                        record("zeta", "z-2", "too many names", flood),
                        record("zeta", "z-3", "fine too", Map.of())));
        Map<ShardId, ShardStore.Written> written = store.writeAll(batches);
        assertThat(written).containsOnlyKeys(acme, zeta);
        assertThat(written.get(acme).rejections()).isEmpty();
        assertThat(written.get(zeta).rejections()).singleElement().satisfies(r -> {
            assertThat(r.index()).isEqualTo(1);
            assertThat(r.reason()).contains("Limit of total fields");
        });
        store.refresh();
        assertThat(search(store.location(acme), "*").path("total").path("value").asLong())
                .isEqualTo(2);
        assertThat(search(store.location(zeta), "*").path("total").path("value").asLong())
                .isEqualTo(2);
    }

    @Test
    void aDocumentOpenSearchRefusesIsReturnedWithItsReasonAndTheOthersAreWritten() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId shard = ShardId.records("acme", DAY);
        Map<String, Object> some = new LinkedHashMap<>();
        Map<String, Object> more = new LinkedHashMap<>();
        for (int i = 0; i < 600; i++) { // the second record takes the index past its 1,000 fields
            some.put("f" + i, "v");
            more.put("g" + i, "v");
        }
        List<IndexRecord> batch = new ArrayList<>();
        batch.add(record("acme", "ok-1", "fine", some));
        batch.add(record("acme", "flood", "too many names", more));
        batch.add(record("acme", "ok-2", "fine too", Map.of("a.b", "x", "a", "y")));
        ShardStore.Written w = store.write(shard, batch);
        assertThat(w.rejections()).singleElement().satisfies(r -> {
            assertThat(r.index()).isEqualTo(1);
            assertThat(r.reason())
                    .contains("OpenSearch refused the document (400")
                    .contains("Limit of total fields");
        });
        store.refresh();
        assertThat(search(store.location(shard), "*")
                        .path("total")
                        .path("value")
                        .asLong())
                .isEqualTo(2);
        assertThat(search(store.location(shard), "fields.a%2Eb:x AND fields.a:y")
                        .path("total")
                        .path("value")
                        .asLong())
                .as("a dotted name and its prefix are two fields")
                .isEqualTo(1);
    }

    @Test
    void aCommitStoresItsOffsetsBesideTheIndicesWrittenSinceTheLastOneAndDeletingForgetsThem() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId one = ShardId.records("acme", DAY);
        ShardId two = ShardId.records("acme", DAY.plusDays(1));
        assertThat(store.committedOffsets(one)).isEmpty();
        store.write(one, List.of(record("acme", "a", "a", Map.of())));
        store.commit(Map.of("logpipe.records-0", 10L));
        store.write(two, List.of(record("acme", "b", "b", Map.of())));
        store.commit(Map.of("logpipe.records-0", 11L));
        assertThat(store.committedOffsets(one)).containsExactly(Map.entry("logpipe.records-0", 10L));
        assertThat(store.committedOffsets(two)).containsExactly(Map.entry("logpipe.records-0", 11L));
        OpenSearchStore reopened = OpenSearchStore.open(settings);
        assertThat(reopened.committedOffsets(two)).containsEntry("logpipe.records-0", 11L);
        assertThat(reopened.delete(one)).isTrue();
        assertThat(reopened.delete(one)).isFalse();
        assertThat(reopened.committedOffsets(one)).isEmpty();
        assertThat(reopened.shards(ShardKind.RECORDS)).containsExactly(two);
    }
}
