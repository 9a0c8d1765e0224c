package dev.logpipe.indexer.consume;

import dev.logpipe.index.store.ShardStore;
import dev.logpipe.indexer.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Near-real-time refresh on its own thread, every {@code interval}: snapshot the INDEXED offsets, refresh, then
 * declare that snapshot QUERYABLE (what was written before the snapshot is visible after the refresh).
 */
public final class Refresher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Refresher.class);
    private final ShardStore store;
    private final StageOffsets stages;
    private final IndexerMetrics metrics;
    private final Duration interval;
    private final Thread thread;
    private volatile boolean running = true;

    public Refresher(ShardStore store, StageOffsets stages, IndexerMetrics metrics, Duration interval) {
        this.store = store;
        this.stages = stages;
        this.metrics = metrics;
        this.interval = interval;
        this.thread = new Thread(this::run, "indexer-refresh");
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    private void run() {
        while (running) {
            long started = System.nanoTime();
            refreshOnce();
            long left = interval.toNanos() - (System.nanoTime() - started);
            if (left > 0) {
                LockSupport.parkNanos(left);
            }
        }
    }

    /** One refresh; failures are counted and logged, and the next refresh tries again. */
    public void refreshOnce() {
        long started = System.nanoTime();
        Map<String, long[]> snapshot = stages.indexedSnapshot();
        try {
            store.refresh();
            stages.queryable(snapshot, metrics::freshnessMillis);
            metrics.refreshed(System.nanoTime() - started);
        } catch (Exception e) { // a shard closed under us, a disk error: the next refresh retries
            metrics.refreshFailed();
            log.warn("refresh failed: {}", e.toString());
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        thread.join(10_000);
    }
}
