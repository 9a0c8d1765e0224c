package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The archive cache of {@link TieredShardSource}: archived days restored into local Lucene shards under one directory
 * (emptied at start: what an earlier process restored is not known to this one), each with the state it was restored
 * from (the archive and the late hot records merged in) and the blocks it holds. At most {@code maxDays} days and
 * {@code maxBytes} on disk, least recently used evicted; the day just restored always stays. One restore at a time;
 * reading what is restored never waits for one. Thread-safe.
 */
final class RestoredDays implements Closeable {
    /** What one restore writes into the day's shard: the archive's {@code missing} blocks, then any late records. */
    @FunctionalInterface
    interface Fill {
        /** @param whole every block is missing: read the whole archive, checked against the day's digest */
        void into(BitSet missing, boolean whole, ArchivedDayRecords.Sink sink) throws IOException;
    }

    /** The state a day is restored from, read once the restore holds the lock (the hot day may change meanwhile). */
    @FunctionalInterface
    interface State {
        String now() throws IOException;
    }

    /** What a day's cache shard holds: restored from which state, which blocks of how many, its bytes on disk. */
    private record Restored(String state, BitSet blocks, int total, long diskBytes) {
        boolean whole() {
            return blocks.cardinality() == total;
        }

        boolean holds(BitSet wanted) {
            BitSet missing = (BitSet) wanted.clone();
            missing.andNot(blocks);
            return missing.isEmpty();
        }
    }

    private final LuceneStore cache;
    private final LiveShards reads;
    private final int maxDays;
    private final long maxBytes;
    /** Restored day → what it was restored from, in access order. */
    private final LinkedHashMap<ShardId, Restored> restored = new LinkedHashMap<>(16, 0.75f, true);

    private final ReentrantLock restoring = new ReentrantLock();
    private final AtomicLong restores = new AtomicLong();
    private final AtomicLong blocksRestored = new AtomicLong();

    RestoredDays(Path dir, int maxDays, long maxBytes, InstantSource clock) {
        if (maxDays < 1) {
            throw new IllegalArgumentException("maxCachedDays must be >= 1, was " + maxDays);
        }
        wipe(dir);
        this.cache = new LuceneStore(new ShardLayout(dir), StoreSettings.defaults(), clock);
        this.reads = new LiveShards(cache);
        this.maxDays = maxDays;
        this.maxBytes = maxBytes;
    }

    private static void wipe(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear the archive cache " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The restored days' shards, for searching them. */
    LiveShards reads() {
        return reads;
    }

    /** True when the whole day is in its cache shard as restored from {@code state}. */
    boolean whole(ShardId shard, String state) {
        synchronized (restored) {
            Restored r = restored.get(shard);
            return r != null && r.whole() && r.state().equals(state);
        }
    }

    /** True when the blocks {@code wanted} are in the day's cache shard as restored from {@code state}. */
    boolean holds(ShardId shard, String state, BitSet wanted) {
        synchronized (restored) {
            Restored r = restored.get(shard);
            return r != null && r.holds(wanted) && r.state().equals(state);
        }
    }

    /** The blocks the day's cache shard holds as restored from {@code state} (none when another state). */
    BitSet held(ShardId shard, String state) {
        synchronized (restored) {
            Restored r = restored.get(shard);
            return r != null && r.state().equals(state) ? (BitSet) r.blocks().clone() : new BitSet();
        }
    }

    /**
     * Restores the blocks {@code want} of the day's {@code total} into its cache shard, adding to the blocks restored
     * before from the same state (a shard restored from another state is dropped first), then evicts. The state is
     * read under the lock, so a restore that waited for another does not undo it with a state read before.
     */
    void restore(ShardId shard, State state, int total, BitSet want, Fill fill) throws IOException {
        restoring.lock();
        try {
            restoreLocked(shard, state.now(), total, want, fill);
        } finally {
            restoring.unlock();
        }
    }

    private void restoreLocked(ShardId shard, String state, int total, BitSet want, Fill fill) throws IOException {
        Restored was;
        synchronized (restored) {
            was = restored.get(shard);
            if (was != null && !was.state().equals(state)) {
                restored.remove(shard);
            }
        }
        if (was != null && !was.state().equals(state)) {
            cache.delete(shard);
            was = null;
        }
        BitSet missing = (BitSet) want.clone();
        if (was != null) {
            missing.andNot(was.blocks());
        }
        if (missing.isEmpty()) {
            return;
        }
        restores.incrementAndGet();
        blocksRestored.addAndGet(missing.cardinality());
        RecordBatch batch = new RecordBatch();
        fill.into(missing, was == null && missing.cardinality() == total, r -> {
            if (batch.add(r)) {
                write(shard, batch.take());
            }
        });
        write(shard, batch.take());
        cache.commit(Map.of());
        cache.refresh();
        BitSet now = was == null ? new BitSet(total) : (BitSet) was.blocks().clone();
        now.or(want);
        long disk = sizeOf(Path.of(cache.location(shard))); // files a merge removes meanwhile do not count
        List<ShardId> evicted = new ArrayList<>();
        synchronized (restored) {
            restored.put(shard, new Restored(state, now, total, disk));
            long cached =
                    restored.values().stream().mapToLong(Restored::diskBytes).sum();
            var eldest = restored.entrySet().iterator();
            while ((restored.size() > maxDays || cached > maxBytes) && restored.size() > 1) {
                var e = eldest.next();
                if (e.getKey().equals(shard)) {
                    continue; // the day just restored stays
                }
                cached -= e.getValue().diskBytes();
                evicted.add(e.getKey());
                eldest.remove();
            }
        }
        for (ShardId e : evicted) {
            cache.delete(e);
        }
    }

    private static long sizeOf(Path path) throws IOException {
        try {
            if (!Files.isDirectory(path)) {
                return Files.size(path);
            }
            long bytes = 0;
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
                for (Path p : entries) {
                    bytes += sizeOf(p);
                }
            }
            return bytes;
        } catch (NoSuchFileException gone) {
            return 0;
        }
    }

    private void write(ShardId shard, List<IndexRecord> batch) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        var written = cache.write(shard, batch);
        if (!written.rejections().isEmpty()) {
            throw new IOException(
                    "restoring " + shard + " refused " + written.rejections().size() + " records: "
                            + written.rejections().get(0));
        }
    }

    long restores() {
        return restores.get();
    }

    long blocksRestored() {
        return blocksRestored.get();
    }

    /** The days restored now. */
    List<ShardId> days() {
        synchronized (restored) {
            return new ArrayList<>(restored.keySet());
        }
    }

    /** Closes the cache once a restore under way finished. */
    @Override
    public void close() throws IOException {
        restoring.lock();
        try {
            cache.close();
        } finally {
            restoring.unlock();
        }
    }
}
