package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.KeptReads;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of a data directory another process writes: opens each shard's last Lucene commit read-only (no
 * write lock, nothing is ever written), finds new shards when they are asked for, and on its own thread reopens
 * changed ones every {@code reopenInterval} ({@code DirectoryReader.openIfChanged}) and lets go of deleted ones.
 * What it serves is at most one commit interval of the indexer plus one reopen interval old.
 */
public final class CommittedShards implements ShardSource, Closeable {
    private static final Logger log = LoggerFactory.getLogger(CommittedShards.class);
    private final ShardLayout layout;
    private final Duration reopenInterval;
    private final Map<ShardId, Opened> open = new ConcurrentHashMap<>();
    private final MetadataFiles metadataFiles = new MetadataFiles();
    private final CompiledQueries queries = new CompiledQueries();
    private final ReadCaches caches = ReadCaches.forQueries();
    private final Thread thread;
    private volatile boolean running = true;
    private boolean closed;

    private record Opened(Directory directory, SearcherManager searchers) {
        void close() throws IOException {
            try {
                searchers.close();
            } finally {
                directory.close();
            }
        }
    }

    public CommittedShards(ShardLayout layout, Duration reopenInterval) {
        this.layout = layout;
        this.reopenInterval = reopenInterval;
        this.thread = new Thread(this::run, "query-reopen");
        thread.setDaemon(true);
    }

    /** Queries compiled to Lucene so far: a query searched again, on any shard, is compiled once. */
    public long compiles() {
        return queries.compiles();
    }

    /** What this side keeps between requests, for its gauges. */
    public KeptReads keptReads() {
        return caches;
    }

    /** Starts the reopen thread. */
    public void start() {
        thread.start();
    }

    @Override
    public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
        return layout.list(kind, tenant);
    }

    @Override
    public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
        return metadataFiles.read(layout.metadataFile(shard));
    }

    @Override
    public Optional<ShardSearcher> open(ShardId shard) throws IOException {
        if (closed) {
            throw new IllegalStateException("the shard source is closed");
        }
        Opened o = open.get(shard);
        if (o == null) {
            o = openShard(shard);
            if (o == null) {
                return Optional.empty();
            }
        }
        SearcherManager m = o.searchers();
        IndexSearcher s;
        try {
            s = m.acquire();
        } catch (AlreadyClosedException e) { // closed by the reopen thread just now
            return open(shard);
        }
        return Optional.of(new LuceneShardSearcher(shard, s.getIndexReader(), () -> m.release(s), queries, caches));
    }

    private synchronized Opened openShard(ShardId shard) throws IOException {
        Opened o = open.get(shard);
        if (o != null) {
            return o;
        }
        Path dir = layout.luceneDir(shard);
        if (!Files.isDirectory(dir)) {
            return null;
        }
        Directory d = FSDirectory.open(dir);
        try {
            if (!DirectoryReader.indexExists(d)) {
                d.close();
                return null;
            }
            o = new Opened(d, new SearcherManager(d, null));
        } catch (IOException | RuntimeException e) {
            d.close();
            throw new IOException("shard " + layout.shardDir(shard) + " cannot be opened for reading: " + e, e);
        }
        open.put(shard, o);
        return o;
    }

    /** Reopens every open shard whose commit changed; closes those whose directory is gone. */
    public void reopenOnce() {
        for (Map.Entry<ShardId, Opened> e : open.entrySet()) {
            ShardId id = e.getKey();
            try {
                if (!Files.isDirectory(layout.luceneDir(id))) {
                    drop(id, e.getValue());
                    continue;
                }
                e.getValue().searchers().maybeRefresh();
            } catch (IOException | RuntimeException ex) {
                log.warn("reopening shard {} failed: {}", id, ex.toString());
                if (!Files.isDirectory(layout.luceneDir(id))) {
                    drop(id, e.getValue());
                }
            }
        }
    }

    private synchronized void drop(ShardId id, Opened o) {
        metadataFiles.forget(layout.metadataFile(id));
        if (open.remove(id, o)) {
            try {
                o.close();
            } catch (IOException ex) {
                log.warn("closing deleted shard {} failed: {}", id, ex.toString());
            }
        }
    }

    public int openShards() {
        return open.size();
    }

    private void run() {
        while (running) {
            LockSupport.parkNanos(reopenInterval.toNanos());
            if (running) {
                reopenOnce();
            }
        }
    }

    /** Stops the reopen thread and closes every shard. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        running = false;
        LockSupport.unpark(thread);
        try {
            if (thread.isAlive()) {
                thread.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Opened o : open.values()) {
            o.close();
        }
        open.clear();
    }
}
