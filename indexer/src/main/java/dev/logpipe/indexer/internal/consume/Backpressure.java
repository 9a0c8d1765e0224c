package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import java.time.Instant;
import java.time.InstantSource;
import org.apache.kafka.clients.consumer.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pauses every assigned partition while the store is behind, so the indexer reads slower instead of growing: a commit
 * is still running when the next one is due by count ({@code commit.max_records} written since), or the store's
 * {@link ShardStore#backlog backlog} is over twice its budget (Lucene: the open shards' indexing RAM against
 * {@code index.ram_buffer}; flushes falling behind; resumed at once it is back under it). The loop keeps polling
 * meanwhile, so the group keeps its partitions. Loop thread only.
 */
final class Backpressure {
    /** Under the loop's name, as before the loop was split: operators' log settings name it. */
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);

    private final ShardStore store;
    private final long maxRecords;
    private final WriteFailures failures;
    private final IndexerMetrics metrics;
    private final InstantSource clock;
    /** Why every assigned partition is paused, or null while consuming. */
    private String pausedFor;

    Backpressure(
            ShardStore store, long maxRecords, WriteFailures failures, IndexerMetrics metrics, InstantSource clock) {
        this.store = store;
        this.maxRecords = maxRecords;
        this.failures = failures;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Whether every assigned partition is paused now (a partition assigned meanwhile is paused too). */
    boolean pausing() {
        return pausedFor != null;
    }

    /** Pauses or resumes every assigned partition; a partition still waiting out a store failure stays paused. */
    void check(Consumer<?, ?> consumer, boolean commitInFlight, long sinceCommit) {
        String why = null;
        if (commitInFlight && sinceCommit >= maxRecords) {
            why = "commit_behind";
        } else {
            ShardStore.Backlog backlog = store.backlog();
            long budget = backlog.budgetBytes();
            long ram = backlog.bytes();
            if (ram > 2 * budget || ("ram_over_buffer".equals(pausedFor) && ram > budget)) {
                why = "ram_over_buffer";
            }
        }
        if (why != null && pausedFor == null) {
            consumer.pause(consumer.assignment());
            metrics.paused(why);
            log.info("pausing all partitions ({}): the index store is behind", why);
        } else if (why == null && pausedFor != null) {
            Instant now = clock.instant();
            consumer.resume(consumer.paused().stream()
                    .filter(tp -> !failures.waiting(tp, now))
                    .toList());
            log.info("resuming all partitions");
        }
        pausedFor = why;
        metrics.pausedNow(why != null);
    }
}
