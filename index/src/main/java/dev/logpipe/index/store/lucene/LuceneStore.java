package dev.logpipe.index.store.lucene;

import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store: one Lucene index per shard on local disk ({@link ShardLayout}), opened lazily on first write
 * or search, closed after a commit when idle or beyond {@link StoreSettings#maxOpenShards()}. One process owns the
 * data directory (Lucene's write lock enforces it).
 */
public final class LuceneStore implements ShardStore {
    private static final Logger log = LoggerFactory.getLogger(LuceneStore.class);
    private final ShardLayout layout;
    private final StoreSettings settings;
    private final InstantSource clock;
    private final Map<ShardId, Shard> open = new ConcurrentHashMap<>();
    private final FieldNameBudget fieldNameBudget;
    private final ExecutorService refreshHelper = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "index-refresh");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;

    public LuceneStore(ShardLayout layout, StoreSettings settings, InstantSource clock) {
        this.layout = layout;
        this.settings = settings;
        this.clock = clock;
        this.fieldNameBudget = new FieldNameBudget(settings.fieldNames().bytesPerTenant());
    }

    public ShardLayout layout() {
        return layout;
    }

    @Override
    public Written write(ShardId shard, List<IndexRecord> batch) throws IOException {
        if (shard.kind() != ShardKind.RECORDS) {
            throw new IllegalArgumentException("shard: records go to a RECORDS shard, was " + shard);
        }
        return shard(shard).write(batch);
    }

    @Override
    public List<Rejection> writeDeadLetters(ShardId shard, List<DeadLetterEntry> batch) throws IOException {
        if (shard.kind() != ShardKind.DEAD_LETTERS) {
            throw new IllegalArgumentException("shard: dead letters go to a DEAD_LETTERS shard, was " + shard);
        }
        return shard(shard).writeDeadLetters(batch);
    }

    private Shard shard(ShardId id) throws IOException {
        if (closed) {
            throw new IllegalStateException("the store is closed");
        }
        Shard s = open.get(id);
        if (s != null && !s.isClosed()) {
            return s;
        }
        synchronized (this) {
            s = open.get(id);
            if (s == null || s.isClosed()) {
                s = Shard.open(layout, id, settings, fieldNameBudget, ramShare(open.size() + 1));
                open.put(id, s);
                rebalanceRam();
            }
            return s;
        }
    }

    private int ramShare(int shards) {
        return Math.max(8, settings.ramBufferMb() / Math.max(1, shards));
    }

    private void rebalanceRam() {
        int share = ramShare(open.size());
        open.values().forEach(s -> s.setRamBufferMb(share));
    }

    @Override
    public int commit(Map<String, Long> offsets) throws IOException {
        int committed = 0;
        for (Shard s : open.values()) {
            if (s.dirty()) {
                s.commit(offsets, clock.instant());
                committed++;
            }
        }
        return committed;
    }

    /** The shards written since their last commit. */
    public List<ShardId> dirtyShards() {
        List<ShardId> out = new ArrayList<>();
        open.values().forEach(s -> {
            if (s.dirty()) {
                out.add(s.id());
            }
        });
        return out;
    }

    /** Closes clean shards unused for {@code idle}, then the least recently used clean ones beyond the cap. */
    @Override
    public synchronized int closeIdle(Duration idle) throws IOException {
        long now = System.nanoTime();
        int closedCount = 0;
        List<Shard> clean = new ArrayList<>();
        for (Shard s : open.values()) {
            if (!s.dirty()) {
                clean.add(s);
            }
        }
        clean.sort(Comparator.comparingLong((Shard s) -> s.idleNanos(now)).reversed());
        int excess = open.size() - settings.maxOpenShards();
        for (Shard s : clean) {
            if (s.idleNanos(now) >= idle.toNanos() || excess > 0) {
                open.remove(s.id(), s);
                s.close();
                excess--;
                closedCount++;
            }
        }
        if (closedCount > 0) {
            rebalanceRam();
        }
        return closedCount;
    }

    /**
     * Drops every write since each open shard's last commit: closes every open shard without committing (each opens
     * again from its last commit on next use). For a caller that met a store failure and reads again from the last
     * committed offsets; a shard that fails to close (its writer already closed by the failure) is closed as far as it
     * goes and logged.
     */
    @Override
    public synchronized void rollback() {
        for (Shard s : List.copyOf(open.values())) {
            open.remove(s.id(), s);
            try {
                s.close();
            } catch (IOException | RuntimeException e) {
                log.warn("shard {}: closing after a failure: {}", layout.shardDir(s.id()), e.toString());
            }
        }
        rebalanceRam();
    }

    /** Indexing RAM the open shards use now (buffered documents and flushes in progress). */
    public long ramBytesUsed() {
        long sum = 0;
        for (Shard s : open.values()) {
            sum += s.ramBytesUsed();
        }
        return sum;
    }

    /** {@link #ramBytesUsed()} against {@code ram_buffer}: the budget the open shards share. */
    @Override
    public Backlog backlog() {
        return new Backlog(ramBytesUsed(), (long) settings.ramBufferMb() << 20);
    }

    /** The shard's directory. */
    @Override
    public String location(ShardId shard) {
        return layout.shardDir(shard).toString();
    }

    public int openShards() {
        return open.size();
    }

    /**
     * Refreshes every open shard, two at a time (this thread and {@code index-refresh}): a refresh is mostly its
     * shard's segment flush, so with several shards written the slowest one, not their sum, sets how stale a search
     * is.
     */
    @Override
    public void refresh() throws IOException {
        List<Shard> shards = List.copyOf(open.values());
        if (shards.size() <= 1) {
            for (Shard s : shards) {
                s.refresh();
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Future<?> helper = refreshHelper.submit(() -> {
            refreshEach(shards, next);
            return null;
        });
        IOException failed = null;
        try {
            refreshEach(shards, next);
        } catch (IOException e) {
            failed = e;
        }
        try {
            helper.get();
        } catch (ExecutionException e) {
            if (failed == null) {
                failed = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while refreshing");
        }
        if (failed != null) {
            throw failed;
        }
    }

    private static void refreshEach(List<Shard> shards, AtomicInteger next) throws IOException {
        for (int i = next.getAndIncrement(); i < shards.size(); i = next.getAndIncrement()) {
            shards.get(i).refresh();
        }
    }

    /**
     * A searcher over one shard as of its last refresh, empty when the shard does not exist; closing it releases the
     * acquired view. Its reader is the acquired one inside a one-reader {@link MultiReader}, as live searches have
     * always had it: {@link ShardSearcher} adds the term-enumeration deadline only to a {@link DirectoryReader}, so
     * live searches check their deadline between documents only (changing that is a change of its own, measured).
     * Its queries are compiled through {@code queries}, the reading side's cache, and what it keeps between requests
     * is in {@code caches}.
     */
    Optional<ShardSearcher> acquire(ShardId id, CompiledQueries queries, ReadCaches caches) throws IOException {
        if (!open.containsKey(id) && !Files.isDirectory(layout.shardDir(id))) {
            return Optional.empty();
        }
        Shard s = shard(id);
        SearcherManager m;
        IndexSearcher acquired;
        synchronized (s) {
            m = s.searchers();
            acquired = m.acquire();
        }
        try {
            // the wrap takes a reference of its own on the acquired reader: it is closed (giving it back) before the
            // acquired view is released, or a reader a refresh replaced would stay open with its segments
            IndexReader reader = new MultiReader(new IndexReader[] {acquired.getIndexReader()}, false);
            return Optional.of(new LuceneShardSearcher(
                    id,
                    reader,
                    () -> {
                        try {
                            reader.close();
                        } finally {
                            m.release(acquired);
                        }
                    },
                    queries,
                    caches));
        } catch (IOException | RuntimeException e) {
            m.release(acquired);
            throw e;
        }
    }

    @Override
    public synchronized boolean delete(ShardId shard) throws IOException {
        Shard s = open.remove(shard);
        if (s != null) {
            s.close();
        }
        Path dir = layout.shardDir(shard);
        if (!Files.exists(dir)) {
            return false;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
        AtomicFile.fsyncDirectory(dir.getParent());
        return true;
    }

    @Override
    public synchronized boolean uncommitted(ShardId shard) {
        Shard s = open.get(shard);
        return s != null && !s.isClosed() && s.dirty();
    }

    @Override
    public List<ShardId> shards(ShardKind kind) throws IOException {
        return layout.list(kind);
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
        return ShardMetadata.read(layout.metadataFile(shard));
    }

    @Override
    public Map<String, Long> committedOffsets(ShardId shard) throws IOException {
        Shard s = open.get(shard);
        if (s != null && !s.isClosed()) {
            return s.committedOffsets();
        }
        try (FSDirectory dir = FSDirectory.open(layout.luceneDir(shard))) {
            if (!DirectoryReader.indexExists(dir)) {
                return Map.of();
            }
            Map<String, Long> out = new HashMap<>();
            SegmentInfos.readLatestCommit(dir).getUserData().forEach((k, v) -> out.put(k, Long.parseLong(v)));
            return out;
        }
    }

    /**
     * Checks that a shard's last commit and metadata are readable without opening a writer.
     *
     * @throws IOException naming the shard's directory when they are not
     */
    public void verify(ShardId shard) throws IOException {
        try (FSDirectory dir = FSDirectory.open(layout.luceneDir(shard))) {
            boolean exists = DirectoryReader.indexExists(dir);
            Optional<ShardMetadata> m = ShardMetadata.read(layout.metadataFile(shard));
            if (exists) {
                SegmentInfos.readLatestCommit(dir);
                if (m.isEmpty()) {
                    throw new IOException(
                            "shard " + layout.shardDir(shard) + " has an index but no " + ShardLayout.METADATA_FILE);
                }
            }
        } catch (IndexFormatTooNewException e) {
            throw Shard.newerIndex(layout.shardDir(shard), e);
        } catch (IOException e) {
            if (e.getMessage() != null
                    && e.getMessage().contains(layout.shardDir(shard).toString())) {
                throw e;
            }
            throw new IOException("shard " + layout.shardDir(shard) + " is corrupt or unreadable: " + e, e);
        }
    }

    /** Closes every open shard without committing. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        refreshHelper.shutdown(); // a refresh in flight finishes (Shard.refresh and close are synchronized)
        IOException first = null;
        for (Shard s : open.values()) {
            try {
                s.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        open.clear();
        if (first != null) {
            throw first;
        }
    }
}
