package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSearcher.Page;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneStoreTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:02.017Z");
    static final LocalDate DAY = LocalDate.parse("2026-12-01");

    @TempDir
    Path data;

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
        LogRecord r = CODEC.decode(line);
        return new IndexRecord(r, T, T, line, 0, line.length);
    }

    /** A number whose text throws: its document cannot be built, for a reason that is not Lucene's. */
    static Number unprintable() {
        return new Number() {
            @Override
            public int intValue() {
                return 0;
            }

            @Override
            public long longValue() {
                return 0;
            }

            @Override
            public float floatValue() {
                return 0;
            }

            @Override
            public double doubleValue() {
                return 0;
            }

            @Override
            public String toString() {
                throw new ArithmeticException("no text for this number");
            }
        };
    }

    LuceneStore store() {
        return new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T));
    }

    static long count(LuceneStore store, ShardId shard, String tenant, String q) throws IOException {
        return StoreReads.count(new LiveShards(store), List.of(shard), tenant, q);
    }

    @Test
    void aClosedLiveSearcherGivesItsReaderBackSoARefreshClosesTheReplacedOne() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(shard, List.of(record("acme", "id-1", "first", Map.of())));
            store.refresh();
            LuceneShardSearcher s =
                    (LuceneShardSearcher) new LiveShards(store).open(shard).orElseThrow();
            org.apache.lucene.index.IndexReader inner =
                    s.reader().getContext().children().get(0).reader();
            s.close();
            assertThat(inner.getRefCount())
                    .as("only the store's own reference is left")
                    .isEqualTo(1);
            store.write(shard, List.of(record("acme", "id-2", "second", Map.of())));
            store.refresh();
            assertThat(inner.getRefCount())
                    .as("the reader a refresh replaced is closed")
                    .isZero();
        }
    }

    @Test
    void aReplayedRecordIdReplacesItsDocument() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(shard, List.of(record("acme", "id-1", "first", Map.of())));
            store.write(shard, List.of(record("acme", "id-1", "second", Map.of())));
            store.refresh();
            assertThat(count(store, shard, "acme", "*:*")).isEqualTo(1);
            assertThat(count(store, shard, "acme", "second")).isEqualTo(1);
            store.commit(Map.of("t-0", 2L));
        }
        try (LuceneStore store = store()) { // reopened: not a fresh shard, so the upsert must delete
            store.write(shard, List.of(record("acme", "id-1", "third", Map.of())));
            store.refresh();
            assertThat(count(store, shard, "acme", "*:*")).isEqualTo(1);
            assertThat(count(store, shard, "acme", "third")).isEqualTo(1);
            assertThat(store.committedOffsets(shard)).containsEntry("t-0", 2L);
        }
    }

    /**
     * A record whose document cannot be built for a reason other than Lucene's refusal (here a value whose text throws)
     * is a rejection of that record: the writer stays healthy, the records around it are written and committed.
     * Before, only an IllegalArgumentException was; any other exception failed the whole batch, on every replay.
     */
    @Test
    void aRecordWhoseDocumentFailsIsRefusedAndTheOthersAreWritten() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        IndexRecord good = record("acme", "before", "before", Map.of());
        LogRecord poison = LogRecord.builder("poison")
                .recordId("poison")
                .tenantId("acme")
                .eventTime(T)
                .field("n", unprintable())
                .build();
        byte[] line = "{}".getBytes(StandardCharsets.UTF_8);
        try (LuceneStore store = store()) {
            ShardStore.Written w = store.write(
                    shard,
                    List.of(
                            good,
                            new IndexRecord(poison, T, T, line, 0, line.length),
                            record("acme", "after", "after", Map.of())));
            assertThat(w.rejections()).singleElement().satisfies(r -> {
                assertThat(r.index()).isEqualTo(1);
                assertThat(r.reason()).contains("ArithmeticException").contains("no text for this number");
            });
            store.commit(Map.of("t-0", 3L));
            store.refresh();
            assertThat(count(store, shard, "acme", "*:*")).isEqualTo(2);
            assertThat(store.committedOffsets(shard)).containsEntry("t-0", 3L);
        }
    }

    @Test
    void oneRefreshShowsEveryShardWrittenBeforeIt() throws Exception {
        try (LuceneStore store = store()) {
            for (int round = 1; round <= 3; round++) {
                for (int t = 0; t < 5; t++) { // more shards than the refresh runs at once
                    store.write(
                            ShardId.records("t" + t, DAY),
                            List.of(record("t" + t, "id-" + round, "round " + round, Map.of())));
                }
                store.refresh();
                for (int t = 0; t < 5; t++) {
                    assertThat(count(store, ShardId.records("t" + t, DAY), "t" + t, "*:*"))
                            .isEqualTo(round);
                }
            }
        }
    }

    @Test
    void twoTenantsWithTheSameRecordIdKeepTwoDocuments() throws Exception {
        try (LuceneStore store = store()) {
            store.write(ShardId.records("acme", DAY), List.of(record("acme", "same", "acme's", Map.of())));
            store.write(ShardId.records("globex", DAY), List.of(record("globex", "same", "globex's", Map.of())));
            store.refresh();
            List<ShardId> both = List.of(ShardId.records("acme", DAY), ShardId.records("globex", DAY));
            LiveShards reads = new LiveShards(store);
            assertThat(StoreReads.hits(reads, both, "acme", "*:*", 10))
                    .singleElement()
                    .satisfies(h -> assertThat(h.source()).contains("acme's"));
            assertThat(StoreReads.hits(reads, both, "globex", "*:*", 10))
                    .singleElement()
                    .satisfies(h -> assertThat(h.source()).contains("globex's"));
            // the tenant filter is outside the user's query: no query text widens it
            assertThat(StoreReads.count(reads, both, "acme", "tenant_id:globex"))
                    .isZero();
            assertThat(StoreReads.count(reads, both, "acme", "*:* OR tenant_id:globex"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aHitReturnsTheSourceExactlyAsAcceptedAndFieldsAreTyped() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        IndexRecord r = record(
                "acme",
                "id-7",
                "took a while",
                Map.of("took_ms", 512L, "ratio", 0.75, "ok", true, "http.path", "/api/v1/users"));
        try (LuceneStore store = store()) {
            store.write(shard, List.of(r));
            store.refresh();
            try (ShardSearcher s = new LiveShards(store).open(shard).orElseThrow()) {
                Page page = s.search(
                        ShardQuery.of("acme", ParsedQuery.parse("fields.took_ms:>500"), Long.MIN_VALUE, Long.MAX_VALUE),
                        ShardSearcher.Order.NEWEST_FIRST,
                        null,
                        10,
                        Long.MAX_VALUE);
                assertThat(page.hits()).singleElement().satisfies(h -> {
                    assertThat(h.source()).isEqualTo(new String(r.source(), StandardCharsets.UTF_8));
                    assertThat(h.recordId()).isEqualTo("id-7");
                    assertThat(h.eventTime()).isEqualTo(T.truncatedTo(ChronoUnit.MILLIS));
                    assertThat(h.shard()).isEqualTo(shard);
                });
                assertThat(StoreReads.count(s, "acme", "fields.took_ms:<500")).isZero();
                assertThat(StoreReads.count(s, "acme", "fields.took_ms:512")).isEqualTo(1);
                assertThat(StoreReads.count(s, "acme", "fields.ratio:[0.5 TO 1]"))
                        .isEqualTo(1);
                assertThat(StoreReads.count(s, "acme", "fields.ok:true")).isEqualTo(1);
                assertThat(StoreReads.count(s, "acme", "fields.http.path:\"/api/v1/users\""))
                        .isEqualTo(1);
                assertThat(StoreReads.count(s, "acme", "level:ERROR AND service:billing"))
                        .isEqualTo(1);
            }
        }
    }

    @Test
    void metadataIsWrittenBeforeEachCommitAndReadableWithoutTheIndex() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(
                    shard,
                    List.of(record("acme", "a", "x", Map.of("n", 1L)), record("acme", "b", "y", Map.of("n", "text"))));
            assertThat(store.metadata(shard)).isEmpty();
            store.commit(Map.of("logpipe.records-0", 10L));
        }
        ShardMetadata m =
                ShardMetadata.read(new ShardLayout(data).metadataFile(shard)).orElseThrow();
        assertThat(m.docs()).isEqualTo(2);
        assertThat(m.labels().get("service")).containsExactly("billing");
        assertThat(m.labels().get("level")).containsExactly("ERROR");
        assertThat(m.fields().get("n")).containsExactly(FieldKind.KEYWORD, FieldKind.LONG);
        assertThat(m.minEventTime()).isEqualTo(T.truncatedTo(ChronoUnit.MILLIS));
        assertThat(m.offsets()).containsEntry("logpipe.records-0", 10L);
        assertThat(new ShardLayout(data).list(ShardKind.RECORDS)).containsExactly(shard);
    }

    @Test
    void aCorruptShardIsReportedWithItsDirectory() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(shard, List.of(record("acme", "a", "x", Map.of())));
            store.commit(Map.of());
        }
        Path lucene = new ShardLayout(data).luceneDir(shard);
        try (var files = Files.list(lucene)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("segments_"))
                    .toList()) {
                Files.write(f, new byte[] {1, 2, 3});
            }
        }
        try (LuceneStore store = store()) {
            assertThatThrownBy(() -> store.verify(shard))
                    .hasMessageContaining(new ShardLayout(data).shardDir(shard).toString());
            assertThatThrownBy(() -> store.write(shard, List.of(record("acme", "b", "y", Map.of()))))
                    .hasMessageContaining(new ShardLayout(data).shardDir(shard).toString());
        }
    }

    @Test
    void deleteRemovesTheWholeShard() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            store.write(shard, List.of(record("acme", "a", "x", Map.of())));
            store.commit(Map.of());
            assertThat(store.delete(shard)).isTrue();
            assertThat(Files.exists(new ShardLayout(data).shardDir(shard))).isFalse();
            assertThat(store.delete(shard)).isFalse();
        }
    }

    @Test
    void pagesContinueAfterTheLastHitWithoutRepeats() throws Exception {
        ShardId shard = ShardId.records("acme", DAY);
        try (LuceneStore store = store()) {
            List<IndexRecord> batch = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                batch.add(record("acme", "id-" + (100 + i), "same time " + i, Map.of()));
            }
            store.write(shard, batch);
            store.refresh();
            Set<String> seen = new LinkedHashSet<>();
            After after = null;
            do {
                StoreReads.Page p = StoreReads.page(new LiveShards(store), List.of(shard), "acme", "", after, 10);
                p.hits().forEach(h -> assertThat(seen.add(h.recordId())).isTrue());
                after = p.next();
            } while (after != null);
            assertThat(seen).hasSize(25).first().isEqualTo("id-100");
        }
    }
}
