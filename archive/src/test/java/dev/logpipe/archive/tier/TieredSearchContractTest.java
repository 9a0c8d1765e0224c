package dev.logpipe.archive.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.aggregate.Values;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.Hit;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same reads on a tenant before and after its days are archived, through the read seam, compared exactly:
 * every page of a paginated search (identical timestamps included), counts, histograms, top values, the largest
 * observed time; another tenant's answers never change and never see the archived tenant's days.
 */
class TieredSearchContractTest {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final LocalDate D1 = LocalDate.parse("2026-11-20");
    private static final LocalDate D2 = LocalDate.parse("2026-11-21");
    private static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");
    private static final List<String> QUERIES =
            List.of("", "level:ERROR", "service:payments", "request", "u7", "took AND NOT level:INFO");

    @TempDir
    Path data;

    private static void write(LuceneStore store, String tenant, LocalDate day, int from, int to) throws IOException {
        List<IndexRecord> batch = new ArrayList<>();
        Instant t0 = day.atStartOfDay(java.time.ZoneOffset.UTC).toInstant().plusSeconds(3600);
        for (int i = from; i < to; i++) {
            Instant t = t0.plusSeconds((i / 5) * 61L); // runs of five identical timestamps
            LogRecord r = LogRecord.builder("request " + i + " user=u" + (i % 13) + " took " + (i % 9) + "ms")
                    .recordId(tenant + "-" + day + "-" + Integer.toHexString(i * 7919))
                    .eventTime(t)
                    .observedTime(t.plusMillis(i % 40))
                    .tenantId(tenant)
                    .service(i % 3 == 0 ? "checkout" : "payments")
                    .instanceId("i-" + (i % 4))
                    .level(i % 11 == 0 ? Level.ERROR : i % 5 == 0 ? Level.WARN : Level.INFO)
                    .field("http.status", i % 11 == 0 ? 500 : 200)
                    .build();
            byte[] line = CODEC.encode(r);
            batch.add(new IndexRecord(r, t, r.observedTime(), line, 0, line.length));
        }
        store.write(ShardId.records(tenant, day), batch);
    }

    private Archiver archiver(
            LuceneStore store, LiveShards hot, ObjectStore objects, ArchiveCatalog catalog, int blockBytes) {
        return new Archiver(
                store,
                hot,
                objects,
                catalog,
                new ArchiveWriter.Settings(blockBytes, 3),
                data.resolve("work"),
                InstantSource.fixed(NOW),
                Archiver.Checkpoint.NONE);
    }

    /** Everything the contract compares, read through one source. */
    private static Map<String, Object> answers(ShardSource source, String tenant) throws IOException {
        return answers(source, tenant, QUERIES, true);
    }

    /** @param maxTime whether to read each shard's largest observed time too (the status API's; it restores) */
    private static Map<String, Object> answers(ShardSource source, String tenant, List<String> queries, boolean maxTime)
            throws IOException {
        Map<String, Object> out = new LinkedHashMap<>();
        List<ShardId> shards = source.shards(ShardKind.RECORDS, tenant);
        out.put("shards", shards);
        for (String q : queries) {
            List<Hit> all = new ArrayList<>();
            After after = null;
            do {
                StoreReads.Page page = StoreReads.page(source, shards, tenant, q, after, 7);
                all.addAll(page.hits());
                after = page.next();
            } while (after != null);
            out.put("pages " + q, all);
            out.put("count " + q, StoreReads.count(source, shards, tenant, q));
            ShardQuery sq = ShardQuery.of(tenant, ParsedQuery.parse(q), Long.MIN_VALUE, Long.MAX_VALUE);
            Histogram h = new Histogram(
                    D1.atStartOfDay(java.time.ZoneOffset.UTC).toInstant().toEpochMilli(), 3_600_000L, 48);
            long[] buckets = new long[48];
            List<Values> values = new ArrayList<>();
            List<Object> maxObserved = new ArrayList<>();
            for (ShardId s : shards) {
                try (ShardSearcher searcher = source.open(s).orElseThrow()) {
                    long[] b = searcher.histogram(sq, h, Long.MAX_VALUE);
                    for (int i = 0; i < b.length; i++) {
                        buckets[i] += b[i];
                    }
                    values.add(searcher.values(sq, "service", 10, Long.MAX_VALUE));
                    values.add(searcher.values(sq, "fields.http.status", 10, Long.MAX_VALUE));
                    if (maxTime) {
                        maxObserved.add(searcher.maxTime("observed_time"));
                    }
                }
            }
            out.put("histogram " + q, java.util.Arrays.toString(buckets));
            out.put("values " + q, values);
            out.put("max observed " + q, maxObserved);
        }
        return out;
    }

    @Test
    void archivedDaysAnswerExactlyAsTheyDidHot() throws IOException {
        InstantSource clock = InstantSource.fixed(NOW);
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            write(store, "acme", D1, 0, 700);
            write(store, "acme", D2, 0, 400);
            write(store, "beta", D1, 0, 300);
            store.commit(Map.of());
            store.refresh();
            LiveShards hot = new LiveShards(store);
            Map<String, Object> acmeBefore = answers(hot, "acme");
            Map<String, Object> betaBefore = answers(hot, "beta");

            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
            Archiver archiver = archiver(store, hot, objects, catalog, 16 << 10);
            archiver.archive(ShardId.records("acme", D1));
            archiver.archive(ShardId.records("acme", D2));
            assertThat(hot.shards(ShardKind.RECORDS, "acme")).isEmpty();

            try (TieredShardSource tiered =
                    new TieredShardSource(hot, catalog, objects, data.resolve("cache"), 4, clock)) {
                Map<String, Object> acmeAfter = answers(tiered, "acme");
                Map<String, Object> betaAfter = answers(tiered, "beta");

                assertThat(acmeAfter).isEqualTo(acmeBefore);
                assertThat(betaAfter).isEqualTo(betaBefore);
                assertThat(tiered.shards(ShardKind.RECORDS, "beta")).containsExactly(ShardId.records("beta", D1));
                assertThat(tiered.restoredDays())
                        .containsExactlyInAnyOrder(ShardId.records("acme", D1), ShardId.records("acme", D2));
            }
        }
    }

    @Test
    void aQueryReadsOnlyTheArchiveBlocksThatMayMatchAndAnswersAsTheHotTierDid() throws IOException {
        InstantSource clock = InstantSource.fixed(NOW);
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            write(store, "acme", D1, 0, 700);
            write(store, "acme", D2, 0, 400);
            store.commit(Map.of());
            store.refresh();
            LiveShards hot = new LiveShards(store);
            // "request 650" is on D1 only, "nosuchtoken" nowhere: a few blocks at most (token filter false
            // positives, ~2 % of blocks); "took 3ms" is everywhere, "u7 AND NOT level:INFO" needs a label too
            Map<String, Boolean> needle = new LinkedHashMap<>();
            needle.put("nosuchtoken", true);
            needle.put("650", true);
            needle.put("\"request 650\"", true);
            needle.put("650 OR nosuchtoken", true);
            needle.put("level:ERROR AND 650", true);
            needle.put("\"took 3ms\"", false);
            needle.put("u7 AND NOT level:INFO", false);
            needle.put("", false);
            needle.put("level:ERROR", false);
            needle.put("level:warn", false);
            needle.put("u7", false); // a part of user=u7: one token, scanned from the blocks on a fresh cache
            Map<String, Map<String, Object>> before = new LinkedHashMap<>();
            for (String q : needle.keySet()) {
                before.put(q, answers(hot, "acme", List.of(q), false));
            }
            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
            Archiver archiver = archiver(store, hot, objects, catalog, 4 << 10);
            archiver.archive(ShardId.records("acme", D1));
            archiver.archive(ShardId.records("acme", D2));

            long blocks = 0;
            for (CatalogEntry e : catalog.entries("acme")) {
                blocks += dev.logpipe.archive.format.ArchiveReader.open(e.key(), objects.open(e.key()))
                        .footer()
                        .blocks()
                        .size();
            }
            assertThat(blocks)
                    .as("small blocks, so pruning has something to prune")
                    .isGreaterThan(40);
            int n = 0;
            for (Map.Entry<String, Boolean> e : needle.entrySet()) {
                try (TieredShardSource tiered =
                        new TieredShardSource(hot, catalog, objects, data.resolve("cache-" + n++), 4, clock)) {
                    assertThat(answers(tiered, "acme", List.of(e.getKey()), false))
                            .as(e.getKey())
                            .isEqualTo(before.get(e.getKey()));
                    long read = tiered.stats().blocksRestored();
                    if (e.getValue()) {
                        assertThat(read).as("blocks read for " + e.getKey()).isLessThanOrEqualTo(blocks / 8);
                    } else if (e.getKey().isEmpty()) {
                        assertThat(read).as("everything matches: every block").isEqualTo(blocks);
                    }
                }
            }
        }
    }

    @Test
    void aCacheBoundedInBytesKeepsTheDayJustRestoredEvictsTheRestAndStillAnswersExactly() throws IOException {
        InstantSource clock = InstantSource.fixed(NOW);
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            write(store, "acme", D1, 0, 700);
            write(store, "acme", D2, 0, 400);
            store.commit(Map.of());
            store.refresh();
            LiveShards hot = new LiveShards(store);
            Map<String, Object> before = answers(hot, "acme", List.of("", "level:ERROR"), true);
            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
            Archiver archiver = archiver(store, hot, objects, catalog, 16 << 10);
            archiver.archive(ShardId.records("acme", D1));
            archiver.archive(ShardId.records("acme", D2));
            try (TieredShardSource tiered = new TieredShardSource(
                    hot, catalog, objects, new TieredShardSource.Cache(data.resolve("cache"), 10, 1), clock)) {
                ShardMetadata planned =
                        tiered.metadata(ShardId.records("acme", D1)).orElseThrow();
                assertThat(planned.labels().get("service"))
                        .as("the footers' label values, for the planner, nothing restored")
                        .containsExactly("checkout", "payments");
                assertThat(planned.labels().get("level")).containsExactly("ERROR", "INFO", "WARN");
                assertThat(planned.truncatedLabels()).isEmpty();
                assertThat(tiered.restoredDays()).isEmpty();
                assertThat(answers(tiered, "acme", List.of("", "level:ERROR"), true))
                        .isEqualTo(before);
                assertThat(tiered.restoredDays())
                        .as("one byte of cache: only the day just restored")
                        .hasSize(1);
                assertThat(data.resolve("cache")
                                .resolve("index")
                                .resolve("acme")
                                .toFile()
                                .list())
                        .as("the evicted day's files are gone")
                        .hasSize(1);
            }
        }
    }

    /** Every key of a day through one searcher per page, pages of {@code limit} in the given order. */
    private static List<String> pages(
            ShardSource source, ShardId day, String query, ShardSearcher.Order order, int limit) throws IOException {
        ShardQuery q = ShardQuery.of(day.tenant(), ParsedQuery.parse(query), Long.MIN_VALUE, Long.MAX_VALUE);
        List<String> out = new ArrayList<>();
        After after = null;
        while (true) {
            try (ShardSearcher s = source.open(day).orElseThrow()) {
                ShardSearcher.Keys keys = s.keys(q, order, after, limit, Long.MAX_VALUE);
                keys.keys()
                        .forEach(k ->
                                out.add(k.eventTimeMillis() + " " + k.recordId().text()));
                if (keys.keys().size() < limit) {
                    return out;
                }
                ShardSearcher.Key last = keys.keys().get(keys.keys().size() - 1);
                after = new After(last.eventTimeMillis(), last.recordId().text());
            }
        }
    }

    @Test
    void pagesOfAnArchivedDayWhoseRecordsShareOneTimestampComeInTheHotOrderBothWays() throws IOException {
        InstantSource clock = InstantSource.fixed(NOW);
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            ShardId day = ShardId.records("acme", D1);
            List<IndexRecord> batch = new ArrayList<>();
            Instant t = D1.atStartOfDay(java.time.ZoneOffset.UTC).toInstant().plusSeconds(7200);
            for (int i = 0; i < 300; i++) { // one timestamp: the order is the record ids', across every block
                LogRecord r = LogRecord.builder("tick " + i + " of the same second")
                        .recordId(Integer.toHexString(i * 40503 % 65521))
                        .eventTime(t)
                        .observedTime(t)
                        .tenantId("acme")
                        .build();
                byte[] line = CODEC.encode(r);
                batch.add(new IndexRecord(r, t, t, line, 0, line.length));
            }
            store.write(day, batch);
            store.commit(Map.of());
            store.refresh();
            LiveShards hot = new LiveShards(store);
            Map<String, List<String>> before = new LinkedHashMap<>();
            for (String query : List.of("", "tick")) { // all (restored in time order), one token (scanned)
                for (ShardSearcher.Order order : ShardSearcher.Order.values()) {
                    before.put(query + " " + order, pages(hot, day, query, order, 7));
                }
            }
            assertThat(before.get(" NEWEST_FIRST")).hasSize(300);
            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
            archiver(store, hot, objects, catalog, 4 << 10).archive(day);
            int n = 0;
            for (String query : List.of("", "tick")) {
                for (ShardSearcher.Order order : ShardSearcher.Order.values()) {
                    try (TieredShardSource tiered =
                            new TieredShardSource(hot, catalog, objects, data.resolve("cache-" + n++), 4, clock)) {
                        assertThat(pages(tiered, day, query, order, 7))
                                .as(query + " " + order)
                                .isEqualTo(before.get(query + " " + order));
                    }
                }
            }
        }
    }

    @Test
    void lateRecordsOfAnArchivedDayAreSearchedWithItAndAReplayIsNotSeenTwice() throws IOException {
        InstantSource clock = InstantSource.fixed(NOW);
        try (LuceneStore store =
                        new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock);
                ObjectStore objects = new DirectoryStore(data.resolve("archive"))) {
            write(store, "acme", D1, 0, 500);
            store.commit(Map.of());
            store.refresh();
            LiveShards hot = new LiveShards(store);
            ArchiveCatalog catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
            archiver(store, hot, objects, catalog, 16 << 10).archive(ShardId.records("acme", D1));

            write(store, "acme", D1, 495, 520); // 5 replays of archived records, 20 late ones
            store.commit(Map.of());
            store.refresh();
            try (TieredShardSource tiered =
                    new TieredShardSource(hot, catalog, objects, data.resolve("cache"), 4, clock)) {
                List<ShardId> shards = tiered.shards(ShardKind.RECORDS, "acme");

                assertThat(shards).containsExactly(ShardId.records("acme", D1));
                assertThat(StoreReads.count(tiered, shards, "acme", "")).isEqualTo(520);
                assertThat(StoreReads.hits(tiered, shards, "acme", "", 1000))
                        .extracting(Hit::recordId)
                        .doesNotHaveDuplicates()
                        .hasSize(520);
            }
        }
    }
}
