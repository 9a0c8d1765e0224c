package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.CorruptShardException;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.IndexRecord;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The read seam over both tiers (a first, exact step towards search over archives, docs/archive.md#searching): a
 * tenant's record days are its hot shards and its catalogued archives ({@link TierPlan}); a day whose archive is
 * searched is restored, on first use, into a local Lucene shard under {@code cacheDir} ({@link RestoredDays}) (the archive's records, then
 * the day's hot records over them as upserts when late records came), so every search answers exactly as the hot
 * tier did: the same engine over the same records. A query restores only the blocks that may hold a match (by the
 * footer's time ranges and label values and the blocks' token filters, {@link ArchivedDaySearcher}), none when no
 * block may: a needle query reads a few blocks, a day it cannot match is not read at all. Restored days are kept up to
 * {@code maxCachedDays}, least recently used evicted. Not yet: counting archive bytes in the budget (a restore is paid
 * by the first query of the day). Dead-letter days are the hot source's. Thread-safe.
 */
public final class TieredShardSource implements ShardSource, Closeable {
    /** Memory the archives' block indexes (footers and token filters) may hold; least recently used dropped. */
    static final long MAX_INDEX_BYTES = 64L << 20;

    private final ShardSource hot;
    private final ArchiveCatalog catalog;
    private final ObjectStore objects;
    private final RestoredDays days;
    /** Archive key → its block index, in access order; at most {@link #MAX_INDEX_BYTES} held. */
    private final LinkedHashMap<String, BlockIndex> indexes = new LinkedHashMap<>(16, 0.75f, true);

    private long indexBytes;
    /** Restores the blocks a needle query scanned, after its answer, so the next query finds them in the cache. */
    private final java.util.concurrent.ThreadPoolExecutor prefetch = new java.util.concurrent.ThreadPoolExecutor(
            1,
            1,
            0,
            java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.ArrayBlockingQueue<>(16),
            r -> {
                Thread t = new Thread(r, "archive-prefetch");
                t.setDaemon(true);
                return t;
            },
            new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());

    private final java.util.concurrent.atomic.AtomicLong daysSkipped = new java.util.concurrent.atomic.AtomicLong();

    public TieredShardSource(
            ShardSource hot,
            ArchiveCatalog catalog,
            ObjectStore objects,
            Path cacheDir,
            int maxCachedDays,
            InstantSource clock) {
        this(hot, catalog, objects, new Cache(cacheDir, maxCachedDays, Long.MAX_VALUE), clock);
    }

    /**
     * The local cache of restored days: its directory, the days kept at most (least recently used evicted) and the
     * bytes on disk kept at most (the day just restored always stays).
     */
    public record Cache(Path dir, int maxDays, long maxBytes) {}

    public TieredShardSource(
            ShardSource hot, ArchiveCatalog catalog, ObjectStore objects, Cache cache, InstantSource clock) {
        this.hot = hot;
        this.catalog = catalog;
        this.objects = objects;
        this.days = new RestoredDays(cache.dir(), cache.maxDays(), cache.maxBytes(), clock);
    }

    @Override
    public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
        if (kind != ShardKind.RECORDS) {
            return hot.shards(kind, tenant);
        }
        catalog.reloadIfChanged(); // another process (the indexer) archives
        TreeSet<ShardId> all = new TreeSet<>(hot.shards(kind, tenant));
        catalog.entries(tenant).forEach(e -> all.add(ShardId.records(tenant, e.day())));
        return new ArrayList<>(all);
    }

    private Optional<TierPlan.Day> day(ShardId shard) throws IOException {
        if (shard.kind() != ShardKind.RECORDS
                || catalog.entry(shard.tenant(), shard.day()).isEmpty()) {
            return Optional.empty();
        }
        List<ShardId> hotShard =
                hot.shards(ShardKind.RECORDS, shard.tenant()).contains(shard) ? List.of(shard) : List.of();
        return TierPlan.plan(shard.tenant(), hotShard, catalog, hot::metadata).stream()
                .filter(d -> d.day().equals(shard.day()))
                .findFirst();
    }

    /**
     * For planning: an archived day restored already answers with its restored shard's metadata; one not restored
     * answers from the catalog (records, time range) and its footers (each label's values, unioned over the blocks;
     * a label a block truncates is truncated), so planning restores nothing and a day the plan leaves out (outside the
     * time range, a label value it lacks, past the budget) is never fetched.
     */
    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
        Optional<TierPlan.Day> d = day(shard);
        if (d.isEmpty()) {
            return hot.metadata(shard);
        }
        if (isRestored(d.get(), shard)) {
            return days.reads().metadata(shard);
        }
        return Optional.of(fromCatalog(d.get(), shard));
    }

    /** True when the whole day is in the cache shard as of its state now. */
    private boolean isRestored(TierPlan.Day day, ShardId shard) throws IOException {
        return days.whole(shard, state(day, shard));
    }

    /** True when the blocks {@code wanted} are in the cache shard as of the day's state now. */
    private boolean holds(TierPlan.Day day, ShardId shard, BitSet wanted) throws IOException {
        return days.holds(shard, state(day, shard), wanted);
    }

    private String state(TierPlan.Day day, ShardId shard) throws IOException {
        CatalogEntry entry = day.archive().orElseThrow();
        return entry.key() + (day.searchHot() ? " + hot " + hot.metadata(shard) : "");
    }

    private ShardMetadata fromCatalog(TierPlan.Day day, ShardId shard) throws IOException {
        CatalogEntry e = day.archive().orElseThrow();
        long docs = e.records();
        long min = e.minEventTimeMillis();
        long max = e.maxEventTimeMillis();
        java.util.TreeMap<String, java.util.SortedSet<String>> labels = new java.util.TreeMap<>();
        java.util.TreeSet<String> truncated = new java.util.TreeSet<>();
        try {
            blockIndex(e).labels(labels, truncated); // the footers' label lists: the planner prunes on them
        } catch (dev.logpipe.index.store.read.CorruptShardException corrupt) {
            truncated.addAll(Fields.LABELS); // unknown: never pruned on; the search reports the day as corrupt
        }
        if (day.searchHot()) {
            Optional<ShardMetadata> h = hot.metadata(shard);
            if (h.isPresent()) {
                docs += h.get().docs();
                if (h.get().minEventTime() != null) {
                    min = Math.min(min, h.get().minEventTime().toEpochMilli());
                    max = Math.max(max, h.get().maxEventTime().toEpochMilli());
                }
                h.get()
                        .labels()
                        .forEach((k, v) -> labels.computeIfAbsent(k, x -> new java.util.TreeSet<>())
                                .addAll(v));
                truncated.addAll(h.get().truncatedLabels());
            } else {
                truncated.addAll(Fields.LABELS);
            }
        }
        boolean empty = docs == 0 || min > max;
        return new ShardMetadata(
                ShardKind.RECORDS,
                shard.tenant(),
                shard.day(),
                docs,
                empty ? null : Instant.ofEpochMilli(min),
                empty ? null : Instant.ofEpochMilli(max),
                labels,
                truncated,
                new java.util.TreeMap<>(),
                true,
                ShardMetadata.FieldsNotIndexed.NONE,
                e.archivedAt(),
                new java.util.TreeMap<>());
    }

    @Override
    public Optional<ShardMetadata> latestMetadata(ShardId shard) throws IOException {
        Optional<TierPlan.Day> d = day(shard);
        if (d.isEmpty()) {
            return hot.latestMetadata(shard);
        }
        restore(d.get(), shard, null);
        return days.reads().latestMetadata(shard);
    }

    @Override
    public Optional<ShardSearcher> open(ShardId shard) throws IOException {
        Optional<TierPlan.Day> d = day(shard);
        if (d.isEmpty()) {
            return hot.open(shard);
        }
        TierPlan.Day day = d.get();
        if (day.searchHot() || isRestored(day, shard)) {
            restore(day, shard, null);
            return days.reads().open(shard);
        }
        CatalogEntry entry = day.archive().orElseThrow();
        return Optional.of(new ArchivedDaySearcher(
                shard,
                blockIndex(entry),
                entry.records(),
                blocks -> {
                    if (blocks == null || !holds(day, shard, blocks)) {
                        restore(day, shard, blocks);
                    }
                    return days.reads()
                            .open(shard)
                            .orElseThrow(() -> new IOException("restored day " + shard + " has no shard"));
                },
                daysSkipped::incrementAndGet,
                blocks -> {
                    try {
                        return holds(day, shard, blocks);
                    } catch (IOException e) {
                        return false;
                    }
                },
                blocks -> prefetch.execute(() -> {
                    try {
                        if (!holds(day, shard, blocks)) {
                            restore(day, shard, blocks);
                        }
                    } catch (IOException | RuntimeException e) {
                        org.slf4j.LoggerFactory.getLogger(TieredShardSource.class)
                                .warn("restoring blocks of {} after a scan failed: {}", shard, e.toString());
                    }
                })));
    }

    /**
     * The raw bytes of the candidate blocks of {@code q} (every block when the day has late hot records, which
     * restore it whole) that the cache does not hold: what a search may fetch and decompress, at most.
     */
    @Override
    public long archiveBytes(ShardId shard, ShardQuery q) throws IOException {
        Optional<TierPlan.Day> d = day(shard);
        if (d.isEmpty() || isRestored(d.get(), shard)) {
            return 0;
        }
        TierPlan.Day day = d.get();
        BlockIndex index;
        try {
            index = blockIndex(day.archive().orElseThrow());
        } catch (CorruptShardException e) {
            return 0; // reading nothing: the search of the day reports it as corrupt, naming the archive
        }
        BitSet held = days.held(shard, state(day, shard));
        List<Integer> blocks = new ArrayList<>();
        if (day.searchHot()) {
            for (int b = 0; b < index.blocks(); b++) {
                blocks.add(b);
            }
        } else {
            blocks = index.candidates(q);
        }
        long bytes = 0;
        for (int b : blocks) {
            if (!held.get(b)) {
                bytes += index.block(b).rawBytes();
            }
        }
        return bytes;
    }

    /** The archive's {@link BlockIndex}, from memory when this process read it before (bounded in bytes). */
    private BlockIndex blockIndex(CatalogEntry entry) throws IOException {
        synchronized (indexes) {
            BlockIndex cached = indexes.get(entry.key());
            if (cached != null) {
                return cached;
            }
        }
        BlockIndex read = BlockIndex.read(ArchiveReader.open(entry.key(), objects.open(entry.key())));
        synchronized (indexes) {
            BlockIndex raced = indexes.get(entry.key());
            if (raced != null) {
                return raced; // another query read it meanwhile: its bytes are counted once
            }
            indexes.put(entry.key(), read);
            indexBytes += read.bytes();
            var it = indexes.entrySet().iterator();
            while (indexBytes > MAX_INDEX_BYTES && it.hasNext()) {
                var eldest = it.next();
                if (eldest.getValue() == read) {
                    break;
                }
                indexBytes -= eldest.getValue().bytes();
                it.remove();
            }
        }
        return read;
    }

    /**
     * How often a query skipped an archived day by its footer and token filters, how many restores ran and how many
     * archive blocks they read.
     */
    public record Stats(long daysSkipped, long restores, long blocksRestored) {}

    public Stats stats() {
        return new Stats(daysSkipped.get(), days.restores(), days.blocksRestored());
    }

    /**
     * Restores blocks of the day's archive into its cache shard: {@code needed} (all when null, or when the day has hot
     * records to merge, which follow the archive's), adding to blocks restored before as long as the day's state is
     * unchanged.
     */
    private void restore(TierPlan.Day day, ShardId shard, BitSet needed) throws IOException {
        CatalogEntry entry = day.archive().orElseThrow();
        int total = blockIndex(entry).blocks();
        BitSet want = new BitSet(total);
        if (needed == null || day.searchHot()) {
            want.set(0, total);
        } else {
            want.or(needed);
        }
        days.restore(shard, () -> state(day, shard), total, want, (missing, whole, sink) -> {
            if (whole) {
                ArchivedDayRecords.read(objects, entry, sink); // the whole day, checked against its digest
            } else {
                ArchivedDayRecords.readBlocks(objects, entry, missing, sink);
            }
            if (day.searchHot()) {
                try (ShardSearcher s =
                        hot.open(shard).orElseThrow(() -> new IOException("hot shard " + shard + " vanished"))) {
                    HotDay.read(s, shard.tenant(), (r, decoded) -> {
                        byte[] source = r.source().getBytes(StandardCharsets.UTF_8);
                        sink.accept(new IndexRecord(
                                decoded,
                                Instant.ofEpochMilli(r.eventTimeMillis()),
                                Instant.ofEpochMilli(r.observedTimeMillis()),
                                source,
                                0,
                                source.length));
                    });
                }
            }
        });
    }

    /** The tenant's days per tier now, for the status API. */
    public TierStatus status(String tenant) throws IOException {
        catalog.reloadIfChanged();
        return TierStatus.of(tenant, hot, catalog);
    }

    /** The days restored now, for tests and the status API. */
    public List<ShardId> restoredDays() {
        return days.days();
    }

    @Override
    public void close() throws IOException {
        prefetch.getQueue().clear();
        prefetch.shutdown(); // never interrupted: Lucene's channels close on an interrupt
        days.close(); // a prefetch's restore under way finishes first
    }
}
