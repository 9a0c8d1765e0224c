package dev.logpipe.index.store.lucene;

import static dev.logpipe.index.store.lucene.LuceneStoreTest.DAY;
import static dev.logpipe.index.store.lucene.LuceneStoreTest.T;
import static dev.logpipe.index.store.lucene.LuceneStoreTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.record.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cap on distinct structured field names a shard indexes (docs/indexer.md#field-names). */
class FieldNameCapTest {
    static final ShardId SHARD = ShardId.records("acme", DAY);

    @TempDir
    Path data;

    LuceneStore store(int cap) {
        return store(cap, StoreSettings.FieldNames.DEFAULT_BYTES_PER_TENANT);
    }

    LuceneStore store(int cap, long bytesPerTenant) {
        return new LuceneStore(
                new dev.logpipe.index.shard.ShardLayout(data),
                new StoreSettings(
                        16,
                        64,
                        1 << 10,
                        StoreSettings.Compression.BEST_SPEED,
                        new StoreSettings.FieldNames(cap, Map.of("roomy", 100), bytesPerTenant)),
                InstantSource.fixed(T));
    }

    static Map<String, Object> fields(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static long count(LuceneStore store, String q) throws Exception {
        store.refresh();
        return LuceneStoreTest.count(store, SHARD, "acme", q);
    }

    /**
     * The names of all of a tenant's open shards share one budget in bytes: a tenant writing to many days cannot
     * multiply the per-shard cap. Another tenant is not affected, and a closed shard gives its names back.
     */
    @Test
    void aTenantsOpenShardsShareOneBudgetOfNameBytes() throws Exception {
        ShardId day1 = ShardId.records("acme", DAY);
        ShardId day2 = ShardId.records("acme", DAY.minusDays(1));
        try (LuceneStore store = store(100, 3 * FieldNameBudget.PER_NAME + 10)) { // names cost 1 KiB + their bytes
            assertThat(store.write(day1, List.of(record("acme", "1", "one", fields("aaaa", "1", "bbbb", "2"))))
                            .fieldsNotIndexed())
                    .isZero(); // 2 KiB + 8 of 3 KiB + 10
            assertThat(store.write(day2, List.of(record("acme", "2", "two", fields("cccc", "1", "dd", "2"))))
                            .fieldsNotIndexed())
                    .as("cccc does not fit (3 KiB + 12), dd does (3 KiB + 10)")
                    .isEqualTo(1);
            assertThat(store.write(
                                    ShardId.records("globex", DAY),
                                    List.of(record("globex", "3", "three", fields("cccc", "1", "eeee", "2"))))
                            .fieldsNotIndexed())
                    .isZero();
            store.refresh();
            assertThat(LuceneStoreTest.count(store, day2, "acme", "fields.dd:2"))
                    .isEqualTo(1);
            assertThat(LuceneStoreTest.count(store, day2, "acme", "fields.cccc:1"))
                    .isZero();
            store.commit(Map.of("t-0", 3L));
            store.closeIdle(java.time.Duration.ZERO); // every shard closes: their names leave the budget
            assertThat(store.write(day2, List.of(record("acme", "4", "four", fields("cccc", "1")))) // 2 KiB + 6
                            .fieldsNotIndexed())
                    .isZero();
        }
    }

    /** A record the index refuses takes no place under the cap: the names of the next record are indexed. */
    @Test
    void aRefusedRecordTakesNoPlaceUnderTheCap() throws Exception {
        LogRecord refused = LogRecord.builder("refused")
                .recordId("x")
                .tenantId("acme")
                .eventTime(T)
                .field("x", "1")
                .field("y", LuceneStoreTest.unprintable())
                .build();
        byte[] line = "{}".getBytes(StandardCharsets.UTF_8);
        try (LuceneStore store = store(2)) {
            ShardStore.Written w = store.write(
                    SHARD,
                    List.of(
                            new IndexRecord(refused, T, T, line, 0, line.length),
                            record("acme", "ab", "ab", fields("a", "1", "b", "2"))));
            assertThat(w.rejections()).hasSize(1);
            assertThat(w.fieldsNotIndexed()).isZero();
            assertThat(count(store, "fields.a:1")).isEqualTo(1);
            assertThat(count(store, "fields.b:2")).isEqualTo(1);
        }
    }

    @Test
    void fieldsPastTheCapStayInTheSourceButAreNotIndexedAndAreCounted() throws Exception {
        IndexRecord wide = record("acme", "w", "wide", fields("a", "1", "b", 2L, "c", "3", "d", "4", "e", 5.5));
        try (LuceneStore store = store(3)) {
            ShardStore.Written w = store.write(SHARD, List.of(wide));
            assertThat(w.fieldsNotIndexed()).isEqualTo(2);
            assertThat(w.rejections()).isEmpty();
            assertThat(count(store, "fields.a:1")).isEqualTo(1);
            assertThat(count(store, "fields.b:>1")).isEqualTo(1);
            assertThat(count(store, "fields.c:3")).isEqualTo(1);
            assertThat(count(store, "fields.d:4")).isZero();
            assertThat(count(store, "fields.e:>5")).isZero();
            assertThat(StoreReads.hits(new LiveShards(store), List.of(SHARD), "acme", "wide", 10))
                    .singleElement()
                    .satisfies(
                            h -> assertThat(h.source()).isEqualTo(new String(wide.source(), StandardCharsets.UTF_8)));
            store.commit(Map.of("t-0", 1L));
            ShardMetadata m = store.metadata(SHARD).orElseThrow();
            assertThat(m.fields()).containsOnlyKeys("a", "b", "c");
            assertThat(m.fieldsNotIndexed().records()).isEqualTo(1);
            assertThat(m.fieldsNotIndexed().values()).isEqualTo(2);
            assertThat(m.fieldsNotIndexed().sample()).containsExactly("d", "e");
        }
    }

    @Test
    void theIndexedNamesSurviveARestartSoAReplayDecidesAsBefore() throws Exception {
        try (LuceneStore store = store(3)) {
            store.write(SHARD, List.of(record("acme", "r1", "one", fields("a", "1", "b", "1"))));
            store.commit(Map.of("t-0", 1L));
            // after the commit: c takes the last place, d finds none; then a crash (close without commit)
            assertThat(store.write(SHARD, List.of(record("acme", "r2", "two", fields("c", "2", "d", "2"))))
                            .fieldsNotIndexed())
                    .isEqualTo(1);
        }
        try (LuceneStore store = store(3)) { // the replay from the committed offset: the same decisions
            assertThat(store.write(SHARD, List.of(record("acme", "r2", "two", fields("c", "2", "d", "2"))))
                            .fieldsNotIndexed())
                    .isEqualTo(1);
            store.commit(Map.of("t-0", 2L));
        }
        try (LuceneStore store = store(3)) { // the committed names come back from the index, not from memory
            assertThat(store.write(SHARD, List.of(record("acme", "r3", "three", fields("x", "3", "a", "3", "c", "3"))))
                            .fieldsNotIndexed())
                    .isEqualTo(1);
            assertThat(count(store, "fields.a:3 AND fields.c:3")).isEqualTo(1);
            assertThat(count(store, "fields.c:2")).isEqualTo(1);
            assertThat(count(store, "fields.d:2 OR fields.x:3")).isZero();
        }
    }

    @Test
    void namesWithHashesAndNumbersAreReadBackFromTheIndexAsTheNamesTheyWere() throws Exception {
        Map<String, Object> odd = fields("a#long", 1L, "b#", 2.5, "c##double", "x", "d", 4L);
        try (LuceneStore store = store(4)) {
            assertThat(store.write(SHARD, List.of(record("acme", "r1", "one", odd)))
                            .fieldsNotIndexed())
                    .isZero();
            store.commit(Map.of());
        }
        try (LuceneStore store = store(4)) { // full with exactly these four: a fifth is refused, these are not
            assertThat(store.write(SHARD, List.of(record("acme", "r2", "two", odd)))
                            .fieldsNotIndexed())
                    .isZero();
            assertThat(store.write(SHARD, List.of(record("acme", "r3", "three", fields("e", 1L))))
                            .fieldsNotIndexed())
                    .isEqualTo(1);
        }
        assertThat(RecordDocuments.structuredName(RecordDocuments.keywordField("a#long")))
                .isEqualTo("a#long");
        assertThat(RecordDocuments.structuredName(
                        RecordDocuments.numericField("a#long", dev.logpipe.index.schema.FieldKind.LONG)))
                .isNull();
        assertThat(RecordDocuments.structuredName("message")).isNull();
    }

    @Test
    void pipelineFieldsAreIndexedWhateverTheCapAndATenantMayHaveItsOwnCap() throws Exception {
        try (LuceneStore store = store(0)) {
            assertThat(store.write(
                                    SHARD,
                                    List.of(record(
                                            "acme",
                                            "r1",
                                            "one",
                                            fields(
                                                    "log.file.path",
                                                    "/var/log/a",
                                                    "log.offset",
                                                    7L,
                                                    "logpipe.redaction.withheld",
                                                    "api_key",
                                                    "mine",
                                                    "x"))))
                            .fieldsNotIndexed())
                    .isEqualTo(1);
            assertThat(count(store, "fields.log.offset:7 AND fields.log.file.path:\"/var/log/a\""))
                    .isEqualTo(1);
            assertThat(count(store, "fields.logpipe.redaction.withheld:api_key"))
                    .isEqualTo(1);
            assertThat(count(store, "fields.mine:x")).isZero();
            ShardId roomy = ShardId.records("roomy", DAY);
            assertThat(store.write(roomy, List.of(record("roomy", "r1", "one", fields("mine", "x"))))
                            .fieldsNotIndexed())
                    .isZero();
        }
    }
}
