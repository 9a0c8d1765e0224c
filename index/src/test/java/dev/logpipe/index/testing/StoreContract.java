package dev.logpipe.index.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every storage engine must do, run once per engine (docs/architecture.md#storage-engines): upserts by (tenant,
 * record_id), tenant isolation outside the query, deterministic pages across day shards, aggregations that agree with
 * the search, context in source order, dead letters, deleting a tenant-day, visibility after a refresh and offsets kept
 * with a commit. An engine's test extends it and says how to open the engine on a directory.
 */
public abstract class StoreContract {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:02.017Z");
    static final long NO_DEADLINE = Long.MAX_VALUE;

    @TempDir
    protected Path data;

    /** The engine under test, opened on {@code dir} (empty, or what an earlier fixture left there). */
    protected abstract EngineFixture open(Path dir) throws Exception;

    static IndexRecord record(String tenant, String id, Instant t, String message, Map<String, Object> fields)
            throws Exception {
        LogRecord.Builder b = LogRecord.builder(message)
                .recordId(id)
                .tenantId(tenant)
                .eventTime(t)
                .observedTime(t)
                .service(fields.containsKey("svc") ? String.valueOf(fields.get("svc")) : "billing")
                .level(Level.ERROR);
        fields.forEach((k, v) -> {
            if (!k.equals("svc")) {
                b.field(k, v);
            }
        });
        byte[] line = CODEC.encode(b.build());
        LogRecord r = CODEC.decode(line);
        return new IndexRecord(r, t, t, line, 0, line.length);
    }

    static ShardId day(String tenant, Instant t) {
        return ShardId.records(tenant, LocalDate.ofInstant(t, ZoneOffset.UTC));
    }

    /**
     * Writes the records, each to its tenant's shard of its event day, all shards prepared and then written in one {@link
     * dev.logpipe.index.store.write.ShardStore#writeAll} as the indexer does.
     */
    static void write(EngineFixture e, List<IndexRecord> records) throws IOException {
        Map<ShardId, List<IndexRecord>> byShard = new LinkedHashMap<>();
        for (IndexRecord r : records) {
            byShard.computeIfAbsent(day(r.record().tenantId(), r.eventTime()), k -> new ArrayList<>())
                    .add(r);
        }
        var written = e.store().writeAll(e.store().prepare(byShard));
        assertThat(written).containsOnlyKeys(byShard.keySet());
        written.values().forEach(w -> assertThat(w.rejections()).isEmpty());
    }

    static ShardQuery all(String tenant, String q) {
        return ShardQuery.of(tenant, ParsedQuery.parse(q), Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** Matches of {@code q} over every shard of the tenant, as the reader shows them. */
    static long count(EngineFixture e, ShardKind kind, String tenant, String q) throws IOException {
        long n = 0;
        for (ShardId id : e.reader().shards(kind, tenant)) {
            Optional<ShardSearcher> s = e.reader().open(id);
            if (s.isPresent()) {
                try (ShardSearcher searcher = s.get()) {
                    n += searcher.count(all(tenant, q), NO_DEADLINE);
                }
            }
        }
        return n;
    }

    /** Every hit of {@code q} on one shard, newest first, with its source. */
    static List<Hit> hits(EngineFixture e, ShardId shard, String tenant, String q) throws IOException {
        try (ShardSearcher s = e.reader().open(shard).orElseThrow()) {
            return s.search(all(tenant, q), ShardSearcher.Order.NEWEST_FIRST, null, 10_000, NO_DEADLINE)
                    .hits();
        }
    }

    @Test
    void aReplayedRecordIdIsOneDocumentHoldingTheLastWrite() throws Exception {
        try (EngineFixture e = open(data)) {
            write(e, List.of(record("acme", "id-1", T, "first", Map.of())));
            write(e, List.of(record("acme", "id-1", T, "second", Map.of())));
            e.makeVisible();
            List<Hit> hits = hits(e, day("acme", T), "acme", "");
            assertThat(hits).hasSize(1);
            assertThat(hits.get(0).source()).contains("second");
        }
    }

    @Test
    void twoTenantsWithOneRecordIdAreTwoDocumentsEachSeenOnlyByItsTenant() throws Exception {
        try (EngineFixture e = open(data)) {
            write(
                    e,
                    List.of(
                            record("acme", "same", T, "of acme", Map.of()),
                            record("zeta", "same", T, "of zeta", Map.of())));
            e.makeVisible();
            assertThat(hits(e, day("acme", T), "acme", ""))
                    .singleElement()
                    .satisfies(h -> assertThat(h.source()).contains("of acme"));
            assertThat(hits(e, day("zeta", T), "zeta", ""))
                    .singleElement()
                    .satisfies(h -> assertThat(h.source()).contains("of zeta"));
            assertThat(e.reader().shards(ShardKind.RECORDS, "acme")).containsExactly(day("acme", T));
        }
    }

    @Test
    void noQueryTextReachesAnotherTenantsRecords() throws Exception {
        try (EngineFixture e = open(data)) {
            write(e, List.of(record("acme", "a-1", T, "secret of acme", Map.of())));
            write(e, List.of(record("zeta", "z-1", T, "of zeta", Map.of())));
            e.makeVisible();
            ShardId acmes = day("acme", T);
            for (String q : List.of(
                    "",
                    "*:*",
                    "secret",
                    "tenant_id:acme",
                    "tenant_id:acme OR tenant_id:zeta",
                    "NOT tenant_id:zeta",
                    "secret OR NOT secret",
                    "record_id:a-1",
                    "tenant_id:*")) {
                try (ShardSearcher s = e.reader().open(acmes).orElseThrow()) {
                    assertThat(s.count(
                                    ShardQuery.of("zeta", ParsedQuery.parse(q), Long.MIN_VALUE, Long.MAX_VALUE),
                                    NO_DEADLINE))
                            .as("tenant zeta asking %s on acme's shard", q)
                            .isZero();
                } catch (IllegalArgumentException refused) {
                    // a query the engine refuses reaches nothing either
                }
            }
        }
    }

    @Test
    void fiveThousandRecordsOfOneTimestampAcrossDaysPageWithoutRepeatOrGapInTheSameOrderTwice() throws Exception {
        try (EngineFixture e = open(data)) {
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                Instant t = T.plusSeconds(86_400L * (i % 3)); // one timestamp per day, three days
                rs.add(record(
                        "acme", "r-" + Integer.toString(i * 7919 % 100_003, 36) + "-" + i, t, "m " + i, Map.of()));
            }
            write(e, rs);
            e.makeVisible();
            List<String> first = pageThrough(e, "acme", 173);
            List<String> second = pageThrough(e, "acme", 1000);
            assertThat(first).hasSize(5_000).doesNotHaveDuplicates().isEqualTo(second);
            List<String> expected = rs.stream()
                    .sorted(Comparator.comparing((IndexRecord r) -> r.eventTime())
                            .reversed()
                            .thenComparing(
                                    r -> r.record().recordId().getBytes(StandardCharsets.UTF_8),
                                    java.util.Arrays::compareUnsigned))
                    .map(r -> r.record().recordId())
                    .toList();
            assertThat(first).isEqualTo(expected);
        }
    }

    /** Every record id of the tenant, newest first, in pages of {@code limit} per shard, shards newest day first. */
    private static List<String> pageThrough(EngineFixture e, String tenant, int limit) throws IOException {
        List<ShardId> shards = new ArrayList<>(e.reader().shards(ShardKind.RECORDS, tenant));
        shards.sort(Comparator.comparing(ShardId::day).reversed());
        List<String> ids = new ArrayList<>();
        for (ShardId id : shards) {
            try (ShardSearcher s = e.reader().open(id).orElseThrow()) {
                After after = null;
                while (true) {
                    ShardSearcher.Page page =
                            s.search(all(tenant, ""), ShardSearcher.Order.NEWEST_FIRST, after, limit, NO_DEADLINE);
                    page.hits().forEach(h -> ids.add(h.recordId()));
                    if (page.hits().size() < limit) {
                        break;
                    }
                    Hit last = page.hits().get(page.hits().size() - 1);
                    after = new After(last.eventTime().toEpochMilli(), last.recordId());
                }
            }
        }
        return ids;
    }

    @Test
    void histogramBucketsAndValueCountsAddUpToTheSearchTotal() throws Exception {
        try (EngineFixture e = open(data)) {
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                rs.add(record(
                        "acme",
                        "h-" + i,
                        T.plusSeconds(i * 7L),
                        i % 4 == 0 ? "slow call" : "ok call",
                        Map.of("svc", "svc-" + (i % 5))));
            }
            write(e, rs);
            e.makeVisible();
            for (String q : List.of("", "slow", "service:svc-1")) {
                long total = count(e, ShardKind.RECORDS, "acme", q);
                assertThat(total).isPositive();
                try (ShardSearcher s = e.reader().open(day("acme", T)).orElseThrow()) {
                    long start = T.toEpochMilli() - 60_000;
                    long[] buckets = s.histogram(all("acme", q), new Histogram(start, 60_000, 90), NO_DEADLINE);
                    assertThat(java.util.Arrays.stream(buckets).sum())
                            .as("histogram of %s", q)
                            .isEqualTo(total);
                    Values v = s.values(all("acme", q), Fields.SERVICE, 10, NO_DEADLINE);
                    long counted = v.counts().values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
                    assertThat(counted + v.overflow() + v.missing())
                            .as("values of %s", q)
                            .isEqualTo(total);
                    assertThat(v.matched()).isEqualTo(total);
                }
            }
        }
    }

    @Test
    void aCallAskedOfSeveralShardsTogetherAnswersAsEachShardAskedAlone() throws Exception {
        try (EngineFixture e = open(data)) {
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 1_500; i++) { // three days, the newest the fullest; another tenant on the same days
                Instant t = T.plusSeconds(86_400L * (i % 3 == 0 ? 0 : i % 5 == 0 ? 1 : 2) + i);
                rs.add(record(
                        i % 7 == 0 ? "other" : "acme",
                        "c-" + i,
                        t,
                        i % 9 == 0 ? "rare slow call" : "ok call",
                        Map.of("svc", "svc-" + (i % 4))));
            }
            write(e, rs);
            e.makeVisible();
            List<ShardId> days = e.reader().shards(ShardKind.RECORDS, "acme");
            assertThat(days).hasSize(3);
            Histogram h = new Histogram(T.toEpochMilli() - 3_600_000, 3_600_000, 80);
            for (String q : List.of("", "slow", "service:svc-1", "nothing-matches-this")) {
                ShardQuery sq = all("acme", q);
                List<ShardCall<?>> calls = List.of(
                        new ShardCall.KeysOf(sq, ShardSearcher.Order.NEWEST_FIRST, null, 50),
                        new ShardCall.KeysOf(
                                sq, ShardSearcher.Order.OLDEST_FIRST, new After(T.toEpochMilli() + 10, "c-0"), 20),
                        new ShardCall.CountOf(sq),
                        new ShardCall.KeysThenCountsOf( // the newest day's keys, the other two days' counts
                                new ShardCall.KeysOf(sq, ShardSearcher.Order.NEWEST_FIRST, null, 50),
                                java.util.Set.of(days.get(0), days.get(1)),
                                Long.MAX_VALUE),
                        new ShardCall.HistogramOf(sq, h),
                        new ShardCall.ValuesOf(sq, Fields.SERVICE, 2));
                for (ShardCall<?> call : calls) {
                    assertThat(together(e, days, call))
                            .as("%s of \"%s\"", call.getClass().getSimpleName(), q)
                            .isEqualTo(alone(e, days, call));
                }
            }
        }
    }

    @Test
    void sourcesReadFromSeveralShardsTogetherAreEachShardsOwnInOrderWithinTheBudget() throws Exception {
        try (EngineFixture e = open(data)) {
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                rs.add(record("acme", "s-" + i, T.plusSeconds(86_400L * (i % 3) + i), "message " + i, Map.of()));
            }
            write(e, rs);
            e.makeVisible();
            List<ShardId> days = e.reader().shards(ShardKind.RECORDS, "acme");
            List<ShardSearcher> searchers = new ArrayList<>();
            try {
                List<int[]> docs = new ArrayList<>();
                List<List<String>> expected = new ArrayList<>();
                for (ShardId d : days) {
                    ShardSearcher s = e.reader().open(d).orElseThrow();
                    searchers.add(s);
                    ShardSearcher.Keys k =
                            s.keys(all("acme", ""), ShardSearcher.Order.OLDEST_FIRST, null, 10, NO_DEADLINE);
                    docs.add(k.keys().stream().mapToInt(ShardSearcher.Key::doc).toArray());
                    expected.add(
                            k.keys().stream().map(key -> key.recordId().text()).toList());
                }
                List<Integer> asked = new ArrayList<>();
                String[][] read = e.reader().sourcesAll(searchers, docs, (i, bytes) -> {
                    asked.add(i);
                    return i % 4 != 1; // refused: left unread (null)
                });
                assertThat(asked)
                        .containsExactlyInAnyOrderElementsOf(
                                java.util.stream.IntStream.range(0, 30).boxed().toList());
                int at = 0;
                for (int i = 0; i < days.size(); i++) {
                    for (int j = 0; j < expected.get(i).size(); j++, at++) {
                        if (at % 4 == 1) {
                            assertThat(read[i][j]).isNull();
                        } else {
                            assertThat(read[i][j])
                                    .contains(
                                            "\"record_id\":\"" + expected.get(i).get(j) + "\"");
                        }
                    }
                }
            } finally {
                for (ShardSearcher s : searchers) {
                    s.close();
                }
            }
        }
    }

    /** Each shard's answer to the call asked of all of them together, as a comparable value. */
    private static List<Object> together(EngineFixture e, List<ShardId> days, ShardCall<?> call) throws IOException {
        List<ShardSearcher> searchers = new ArrayList<>();
        try {
            for (ShardId d : days) {
                searchers.add(e.reader().open(d).orElseThrow());
            }
            List<Object> out = new ArrayList<>();
            for (ShardCall.Answer<?> a : e.reader().callAll(searchers, call, NO_DEADLINE)) {
                assertThat(a.failure()).isNull();
                out.add(comparable(a.value()));
            }
            return out;
        } finally {
            for (ShardSearcher s : searchers) {
                s.close();
            }
        }
    }

    /** Each shard's answer to the call asked of it alone. */
    private static List<Object> alone(EngineFixture e, List<ShardId> days, ShardCall<?> call) throws IOException {
        List<Object> out = new ArrayList<>();
        for (ShardId d : days) {
            try (ShardSearcher s = e.reader().open(d).orElseThrow()) {
                out.add(comparable(call.on(s, NO_DEADLINE)));
            }
        }
        return out;
    }

    /** Keys without their documents (a view's own numbers), histogram counts as a list; other values as they are. */
    private static Object comparable(Object value) {
        if (value instanceof ShardSearcher.Keys k) {
            List<String> keys = new ArrayList<>();
            k.keys()
                    .forEach(key -> keys.add(
                            key.eventTimeMillis() + "/" + key.recordId().text()));
            return List.of(keys, k.total(), k.totalExact());
        }
        if (value instanceof long[] counts) {
            return java.util.Arrays.stream(counts).boxed().toList();
        }
        return value;
    }

    @Test
    void contextKeysComeInSourceOrderBothWays() throws Exception {
        try (EngineFixture e = open(data)) {
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 50; i++) { // written out of order, all of one event time
                int offset = (i * 17) % 50;
                rs.add(record(
                        "acme",
                        "c-" + offset,
                        T,
                        "line " + offset,
                        Map.of("log.file.path", "/var/log/app.log", "log.offset", (long) offset * 100)));
            }
            write(e, rs);
            e.makeVisible();
            try (ShardSearcher s = e.reader().open(day("acme", T)).orElseThrow()) {
                ShardQuery file = all("acme", "")
                        .with(new ShardQuery.Exact("fields.log.file.path", "/var/log/app.log"))
                        .with(new ShardQuery.LongRange("fields.log.offset", 1000, 3000));
                List<Long> up = s.longKeys(file, "log.offset", true, 100, NO_DEADLINE).stream()
                        .map(ShardSearcher.LongKey::value)
                        .toList();
                List<Long> down = s.longKeys(file, "log.offset", false, 100, NO_DEADLINE).stream()
                        .map(ShardSearcher.LongKey::value)
                        .toList();
                assertThat(up).hasSize(21).isSorted().first().isEqualTo(1000L);
                List<Long> reversed = new ArrayList<>(up);
                java.util.Collections.reverse(reversed);
                assertThat(down).isEqualTo(reversed);
            }
        }
    }

    @Test
    void aReplayedDeadLetterIsOneSearchableDocument() throws Exception {
        try (EngineFixture e = open(data)) {
            ShardId dl = ShardId.deadLetters("acme", LocalDate.ofInstant(T, ZoneOffset.UTC));
            byte[] json =
                    "{\"reason\":\"SCHEMA_INVALID\",\"raw\":\"not json at all\"}".getBytes(StandardCharsets.UTF_8);
            DeadLetterEntry letter = new DeadLetterEntry(
                    "dl-1", "acme", "SCHEMA_INVALID", "not an object", "not json at all", T, json, 0, json.length);
            assertThat(e.store().writeDeadLetters(dl, List.of(letter))).isEmpty();
            assertThat(e.store().writeDeadLetters(dl, List.of(letter))).isEmpty();
            e.makeVisible();
            assertThat(count(e, ShardKind.DEAD_LETTERS, "acme", "")).isEqualTo(1);
            assertThat(count(e, ShardKind.DEAD_LETTERS, "acme", "json"))
                    .as("the raw line is the default field")
                    .isEqualTo(1);
            assertThat(count(e, ShardKind.DEAD_LETTERS, "zeta", "")).isZero();
        }
    }

    @Test
    void deletingATenantDayRemovesItAndNothingElse() throws Exception {
        try (EngineFixture e = open(data)) {
            Instant next = T.plusSeconds(86_400);
            write(
                    e,
                    List.of(
                            record("acme", "d-1", T, "day one", Map.of()),
                            record("acme", "d-2", next, "day two", Map.of()),
                            record("zeta", "d-1", T, "other tenant", Map.of())));
            e.makeVisible();
            assertThat(e.store().delete(day("acme", T))).isTrue();
            assertThat(e.store().delete(day("acme", T))).as("already gone").isFalse();
            e.makeVisible();
            assertThat(e.store().shards(ShardKind.RECORDS))
                    .containsExactlyInAnyOrder(day("acme", next), day("zeta", T));
            assertThat(count(e, ShardKind.RECORDS, "acme", "")).isEqualTo(1);
            assertThat(count(e, ShardKind.RECORDS, "zeta", "")).isEqualTo(1);
        }
    }

    @Test
    void aRefreshShowsEveryWriteThatReturnedBeforeIt() throws Exception {
        try (EngineFixture e = open(data)) {
            write(e, List.of(record("acme", "v-1", T, "one", Map.of())));
            e.makeVisible();
            assertThat(count(e, ShardKind.RECORDS, "acme", "")).isEqualTo(1);
            write(e, List.of(record("acme", "v-2", T, "two", Map.of())));
            e.makeVisible();
            assertThat(count(e, ShardKind.RECORDS, "acme", "")).isEqualTo(2);
        }
    }

    @Test
    void aCommitKeepsItsOffsetsAcrossARestartAndAReplayOfWhatFollowedIsAbsorbed() throws Exception {
        EngineFixture e = open(data);
        try {
            write(e, List.of(record("acme", "k-1", T, "committed", Map.of())));
            e.store().commit(Map.of("logpipe.records-0", 1L));
            write(e, List.of(record("acme", "k-2", T, "not committed", Map.of())));
            e = e.restart();
            assertThat(e.store().committedOffsets(day("acme", T))).containsEntry("logpipe.records-0", 1L);
            e.makeVisible();
            Set<String> ids = new HashSet<>();
            hits(e, day("acme", T), "acme", "").forEach(h -> ids.add(h.recordId()));
            // k-2 may be gone (Lucene drops what was not committed) or kept (OpenSearch acknowledged it
            // durably): either way the indexer replays it from offset 1
            assertThat(ids).contains("k-1");
            write(
                    e,
                    List.of(
                            record("acme", "k-2", T, "replayed", Map.of()),
                            record("acme", "k-1", T, "committed", Map.of())));
            e.makeVisible();
            assertThat(count(e, ShardKind.RECORDS, "acme", ""))
                    .as("a replay is absorbed")
                    .isEqualTo(2);
        } finally {
            e.close();
        }
    }
}
