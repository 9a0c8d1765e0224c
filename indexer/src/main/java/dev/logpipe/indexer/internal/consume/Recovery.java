package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.internal.commit.CommitProtocol;
import dev.logpipe.indexer.internal.commit.StoreFailure;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the loop does when the store fails to write or commit (docs/indexer.md#when-the-index-store-fails): drop every
 * write since the last commit, rewind every assigned partition to its last committed offset, and pause the partitions
 * whose records failed until their backoff ({@link WriteFailures}) is over; then resume them. Nothing is lost: the
 * records are read again from Kafka, and no offset past them was committed. Loop thread only.
 *
 * <p>The constructor takes the loop's collaborators, built once by IndexLoop; no value groups them.
 */
final class Recovery {
    /** Under the loop's name, as before the loop was split: operators' log settings and IndexerStoreFailureTest name it. */
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);

    private final ShardStore store;
    private final CommitProtocol commits;
    private final Positions positions;
    private final StageOffsets stages;
    private final WriteFailures failures;
    private final IndexerMetrics metrics;
    private final InstantSource clock;

    Recovery(
            ShardStore store,
            CommitProtocol commits,
            Positions positions,
            StageOffsets stages,
            WriteFailures failures,
            IndexerMetrics metrics,
            InstantSource clock) {
        this.store = store;
        this.commits = commits;
        this.positions = positions;
        this.stages = stages;
        this.failures = failures;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * After a store failure (the poll being decoded already dropped): waits for the commit in flight, rolls the store
     * back, rewinds every assigned partition and pauses the failed ones.
     */
    void recover(Consumer<?, ?> consumer, StoreFailure f) throws InterruptedException, ExecutionException, IOException {
        Set<TopicPartition> failed = new HashSet<>(f.partitions());
        String shard = f.shard();
        Throwable cause = f.getCause();
        try {
            commits.finish(true);
        } catch (StoreFailure commit) { // the commit in flight failed too: none of its offsets reached Kafka
            failed.addAll(commit.partitions());
            shard = shard + ", " + commit.shard();
        }
        store.rollback();
        positions.resetSinceCommit();
        Set<TopicPartition> assignment = consumer.assignment();
        for (TopicPartition tp : assignment) {
            Long to = positions.rewind(tp);
            if (to != null) {
                consumer.seek(tp, to);
                stages.assigned(IndexLoop.key(tp), to);
            }
        }
        failed.retainAll(assignment);
        Instant now = clock.instant();
        Duration backoff = Duration.ZERO;
        for (TopicPartition tp : failed) {
            backoff = failures.failed(tp, shard, cause.toString(), now);
        }
        consumer.pause(failed);
        metrics.storeFailed();
        log.error(
                "the index store failed on the records of {} ({}): {}. Every write since the last commit was dropped "
                        + "and every partition rewound to its last commit (nothing is lost, the records are read "
                        + "again); {} paused, retrying in {} s. Check the disk (space, permissions, the shard "
                        + "directory); GET /api/v1/status lists paused partitions under write_failures",
                failed.stream().map(IndexLoop::key).sorted().toList(),
                shard,
                cause.toString(),
                failed.size() == 1 ? "that partition is" : "those partitions are",
                backoff.toSeconds(),
                cause);
    }

    /** Resumes the partitions paused after a store failure whose backoff is over, unless all are paused. */
    void resumeDue(Consumer<?, ?> consumer, boolean allPaused) {
        if (failures.size() == 0 || allPaused) {
            return;
        }
        Set<TopicPartition> paused = consumer.paused();
        List<TopicPartition> due =
                failures.due(clock.instant()).stream().filter(paused::contains).toList();
        if (!due.isEmpty()) {
            log.info(
                    "retrying partitions {} after a store failure",
                    due.stream().map(IndexLoop::key).toList());
            consumer.resume(due);
        }
    }
}
