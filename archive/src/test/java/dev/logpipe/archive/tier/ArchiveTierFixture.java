package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.format.Block;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two tenants' hot day in a real Lucene store (1,500 records of acme, 200 of beta, in runs of identical timestamps),
 * a catalog and a directory object store in a temp dir: what the archiver's and the restore's tests start from.
 */
abstract class ArchiveTierFixture {
    static final RecordCodec CODEC = new RecordCodec();
    static final LocalDate DAY = LocalDate.parse("2026-11-20");
    static final ShardId ACME_DAY = ShardId.records("acme", DAY);
    static final Instant T = Instant.parse("2026-11-20T10:00:00Z");
    static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");
    static final ArchiveWriter.Settings SMALL_BLOCKS = new ArchiveWriter.Settings(8 << 10, 3);

    @TempDir
    Path data;

    LuceneStore store;
    LiveShards reads;
    ArchiveCatalog catalog;
    ObjectStore objects;
    final List<String> acmeIds = new ArrayList<>();

    @BeforeEach
    void writeTwoTenants() throws IOException {
        store = new LuceneStore(
                new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), InstantSource.fixed(NOW));
        reads = new LiveShards(store);
        catalog = ArchiveCatalog.load(data.resolve("catalog.json"));
        objects = new DirectoryStore(data.resolve("archive"));
        acmeIds.addAll(write("acme", 0, 1500));
        write("beta", 0, 200);
    }

    @AfterEach
    void close() throws IOException {
        store.close();
    }

    /** Records with identical timestamps in runs of four, several services and levels. */
    List<String> write(String tenant, int from, int to) throws IOException {
        List<IndexRecord> batch = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Instant t = T.plusMillis((i / 4) * 100L);
            LogRecord r = LogRecord.builder("request " + i + " user=u" + (i % 31) + " took " + (i % 9) + "ms")
                    .recordId(tenant + "-" + i)
                    .eventTime(t)
                    .observedTime(t)
                    .tenantId(tenant)
                    .service(i % 2 == 0 ? "checkout" : "payments")
                    .level(i % 10 == 0 ? Level.ERROR : Level.INFO)
                    .field("n", i)
                    .build();
            byte[] line = CODEC.encode(r);
            batch.add(new IndexRecord(r, t, t, line, 0, line.length));
            ids.add(r.recordId());
        }
        store.write(ShardId.records(tenant, DAY), batch);
        store.commit(Map.of("logpipe.records-0", (long) to));
        store.refresh();
        return ids;
    }

    Archiver archiver(ObjectStore objects, Archiver.Checkpoint checkpoint) {
        return new Archiver(
                store,
                reads,
                objects,
                catalog,
                SMALL_BLOCKS,
                data.resolve("work"),
                InstantSource.fixed(NOW),
                checkpoint);
    }

    /** Every record id a search over both tiers would visit for the tenant, duplicates kept. */
    List<String> searchable(String tenant) throws IOException {
        List<String> ids = new ArrayList<>();
        for (TierPlan.Day d :
                TierPlan.plan(tenant, reads.shards(ShardKind.RECORDS, tenant), catalog, reads::metadata)) {
            if (d.archive().isPresent()) {
                String key = d.archive().get().key();
                ArchiveReader r = ArchiveReader.open(key, objects.open(key));
                for (int b = 0; b < r.footer().blocks().size(); b++) {
                    Block block = r.block(b);
                    for (int i = 0; i < block.size(); i++) {
                        ids.add(block.recordId(i));
                    }
                }
            }
            if (d.searchHot()) {
                try (ShardSearcher s =
                        reads.open(ShardId.records(tenant, d.day())).orElseThrow()) {
                    HotDay.read(s, tenant, (rec, decoded) -> ids.add(rec.recordId()));
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    static List<String> sorted(List<String> ids) {
        List<String> s = new ArrayList<>(ids);
        s.sort(null);
        return s;
    }
}
