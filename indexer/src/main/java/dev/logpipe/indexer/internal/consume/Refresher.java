package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Near-real-time refresh on its own thread: snapshot the INDEXED offsets, refresh, then declare that snapshot
 * QUERYABLE (what was written before the snapshot is visible after the refresh). Every {@code interval}, or every
 * {@code behindInterval} while the indexer is behind: when even the newest record a refresh made queryable had been
 * in Kafka for more than {@link #behindAge} when that refresh started (a backlog: records wait in Kafka longer than
 * any refresh interval), a refresh as often as when caught up would make nobody's record fresh, and its small
 * segments cost flushes and merges the backlog needs. Taken at the start, the age leaves out the refresh's own time:
 * a slow refresh of fresh records is not a backlog, and refreshing less often would only make them later
 * (docs/indexer.md#refresh).
 */
public final class Refresher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Refresher.class);
    private final ShardStore store;
    private final StageOffsets stages;
    private final IndexerMetrics metrics;
    private final Duration interval;
    private final Duration behindInterval;
    private final InstantSource clock;
    private final Thread thread;
    private volatile boolean running = true;

    public Refresher(
            ShardStore store,
            StageOffsets stages,
            IndexerMetrics metrics,
            Duration interval,
            Duration behindInterval,
            InstantSource clock) {
        this.store = store;
        this.stages = stages;
        this.metrics = metrics;
        this.interval = interval;
        this.behindInterval = behindInterval;
        this.clock = clock;
        this.thread = new Thread(this::run, "indexer-refresh");
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Behind when the newest record made queryable is older than this: three behind intervals. */
    Duration behindAge() {
        return behindInterval.multipliedBy(3);
    }

    private void run() {
        while (running) {
            long started = System.nanoTime();
            boolean behind = refreshOnce();
            long left = (behind ? behindInterval : interval).toNanos() - (System.nanoTime() - started);
            if (left > 0) {
                LockSupport.parkNanos(left);
            }
        }
    }

    /**
     * One refresh; failures are counted and logged, and the next refresh tries again.
     *
     * @return whether the indexer is behind: this refresh made records queryable, and even the newest of them had
     *     been appended to Kafka more than {@link #behindAge} before the refresh started
     */
    public boolean refreshOnce() {
        long started = System.nanoTime();
        long startedMillis = clock.millis();
        Map<String, long[]> snapshot = stages.indexedSnapshot();
        long newest;
        try {
            store.refresh();
            newest = stages.queryable(snapshot, metrics::freshnessMillis);
            metrics.refreshed(System.nanoTime() - started);
        } catch (Exception e) { // a shard closed under us, a disk error: the next refresh retries
            metrics.refreshFailed();
            log.warn("refresh failed: {}", e.toString());
            return false;
        }
        boolean behind = newest > 0 && startedMillis - newest > behindAge().toMillis();
        metrics.refreshBehind(behind);
        return behind;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        thread.join(10_000);
    }
}
