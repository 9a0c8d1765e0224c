package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.internal.commit.CommitProtocol;
import dev.logpipe.indexer.internal.commit.StoreFailure;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.Housekeeping;
import dev.logpipe.indexer.stage.StageOffsets;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The indexer's one consumer thread, {@code indexer-loop}: poll, hand the poll to the {@link Decoder} (split and decode
 * on {@code indexer-decode}), write the previous one ({@link BatchWriter}), and periodically index-then-commit what was
 * written ({@link CommitProtocol}: the store commit, <em>then</em> the Kafka commit of the same offsets;
 * docs/indexer.md#commit-protocol). Retention runs here too, while no commit runs, so no other thread ever closes a
 * shard being written.
 *
 * <p>Memory is bounded by {@code max_poll_records} records of one poll (at most one decoded poll waits), the consumer's
 * {@code fetch_max_bytes} and the store's backlog; the loop never queues work, and pauses every partition while the
 * store is behind ({@link Backpressure}). A failure of the store does not stop it: {@link Recovery} rewinds and pauses
 * the partitions concerned (docs/indexer.md#when-the-index-store-fails). A rebalance commits first ({@link Rebalance}).
 * {@link #close} stops intake, commits what was written, and joins.
 *
 * <p>The constructor takes what Indexer.start assembled (config, store, stages, metrics, housekeeping, clock, the rebuild
 * flag), once; no value groups them.
 */
public final class IndexLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);

    private final IndexerConfig config;
    private final ShardStore store;
    private final StageOffsets stages;
    private final IndexerMetrics metrics;
    private final List<Housekeeping> housekeeping;
    private final InstantSource clock;
    private final boolean rebuild;
    private final Backpressure backpressure;
    private final Recovery recovery;
    private final Thread thread;
    private final Positions positions = new Positions();
    private volatile boolean running = true;
    private volatile boolean assigned;
    private volatile Throwable failure;
    private KafkaConsumer<byte[], byte[]> consumer;
    private DeadLetters deadLetters;
    private Decoder decoder;
    private BatchWriter writer;
    private long lastCommitNanos = System.nanoTime();
    private long lastEndOffsetsNanos;
    /** The decoded poll not yet written, or null. */
    private Future<Decoder.Decoded> pending;
    /** Index-then-commit: the engine commit on {@code indexer-commit}, then the Kafka commit on this thread. */
    private final CommitProtocol commits;
    /** Partitions paused after a store failure, with their backoff. */
    private final WriteFailures failures = new WriteFailures();

    /** @param rebuild replay every partition from its beginning (a corrupt shard was moved aside) */
    public IndexLoop(
            IndexerConfig config,
            ShardStore store,
            StageOffsets stages,
            IndexerMetrics metrics,
            List<Housekeeping> housekeeping,
            InstantSource clock,
            boolean rebuild) {
        this.config = config;
        this.store = store;
        this.stages = stages;
        this.metrics = metrics;
        this.housekeeping = List.copyOf(housekeeping);
        this.clock = clock;
        this.rebuild = rebuild;
        this.thread = new Thread(this::run, "indexer-loop");
        this.commits = new CommitProtocol(
                store, () -> deadLetters.awaitAll(), offsets -> consumer.commitSync(offsets), this::committed);
        this.backpressure = new Backpressure(store, config.commit().maxRecords(), failures, metrics, clock);
        this.recovery = new Recovery(store, commits, positions, stages, failures, metrics, clock);
    }

    public void start() {
        thread.start();
    }

    public boolean ready() {
        return assigned && failure == null && thread.isAlive();
    }

    /** Partitions paused after a store failure, for the status API. */
    public WriteFailures failures() {
        return failures;
    }

    /** Why the loop stopped on its own, or null. */
    public Throwable failure() {
        return failure;
    }

    public boolean isAlive() {
        return thread.isAlive();
    }

    private void run() {
        try {
            deadLetters = new DeadLetters(
                    config.kafka().bootstrapServers(),
                    config.kafka().deadLetterTopic(),
                    config.kafka().properties());
            decoder = new Decoder(config, store, deadLetters, metrics, stages, clock);
            writer = new BatchWriter(
                    store,
                    deadLetters,
                    metrics,
                    stages,
                    positions,
                    config.kafka().deadLetterTopic());
            consumer = Subscription.open(
                    config.kafka(),
                    () -> running,
                    c -> new Rebalance(c, new AroundRebalance(), positions, stages, failures, rebuild));
            if (consumer == null) {
                return;
            }
            while (running) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(pending == null ? 100 : 5));
                Future<Decoder.Decoded> next = polled.isEmpty() ? null : decoder.decode(polled);
                try {
                    writePending();
                    pending = next;
                    commits.finish(false);
                } catch (StoreFailure f) {
                    recover(f, next);
                }
                recovery.resumeDue(consumer, backpressure.pausing());
                backpressure.check(consumer, commits.inFlight(), positions.sinceCommit());
                long now = System.nanoTime();
                boolean housekeepingWrote = housekeeping.stream().anyMatch(Housekeeping::needsCommit);
                if (!commits.inFlight()
                        && (positions.sinceCommit() > 0 || housekeepingWrote)
                        && (now - lastCommitNanos >= config.commit().interval().toNanos()
                                || positions.sinceCommit() >= config.commit().maxRecords())) {
                    startCommit(housekeepingWrote);
                }
                if (now - lastEndOffsetsNanos >= TimeUnit.SECONDS.toNanos(1)) {
                    lastEndOffsetsNanos = now;
                    endOffsets();
                    if (!commits.inFlight()) { // housekeeping closes and deletes shards: never under a commit
                        runHousekeeping();
                    }
                }
            }
            writePending();
            commit();
        } catch (WakeupException e) {
            try {
                writePending();
                commit();
            } catch (Exception ex) {
                failure = ex;
                log.error("final commit failed; the records since the last commit will be read again", ex);
            }
        } catch (Throwable e) {
            failure = e;
            log.error("indexer loop stopped: {}", e.toString(), e);
        } finally {
            assigned = false;
            if (consumer != null) {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            }
            if (deadLetters != null) {
                deadLetters.close();
            }
            if (decoder != null) {
                decoder.close();
            }
            commits.close();
        }
    }

    /**
     * A job the store cannot answer (an OpenSearch cluster out of reach, a disk error, an object store down) is logged
     * and asked again later: it deletes nothing it has not finished, so the records keep flowing.
     */
    private void runHousekeeping() {
        for (Housekeeping job : housekeeping) {
            try {
                job.runIfDue();
            } catch (IOException | RuntimeException e) {
                log.warn("{} check failed, tried again later: {}", job.name(), e.toString());
            }
        }
    }

    /** Writes the decoded poll waiting, if any; only then do its offsets count as processed. */
    private void writePending() throws Exception {
        if (pending == null) {
            return;
        }
        Decoder.Decoded d;
        try {
            d = pending.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("decoding a poll failed: " + e.getCause(), e.getCause());
        } finally {
            pending = null;
        }
        writer.write(d);
    }

    /** Index-then-commit, synchronously, of what was written so far: for shutdown and rebalances. */
    private void commit() throws Exception {
        commits.finish(true);
        if (startCommit()) {
            commits.finish(true);
        }
    }

    /** Starts the engine commit of every record written so far ({@link CommitProtocol#start}). */
    private boolean startCommit() {
        return startCommit(false);
    }

    /** As {@link #startCommit()}; {@code evenIfEmpty} for records housekeeping wrote ({@link Housekeeping#needsCommit}). */
    private boolean startCommit(boolean evenIfEmpty) {
        if (consumer == null || !commits.start(positions.written(), evenIfEmpty)) {
            return false;
        }
        positions.resetSinceCommit();
        return true;
    }

    /** After both commits: the partitions' failures end, their rewind point moves, idle shards close. */
    private void committed(CommitProtocol.Done done) throws IOException {
        // Only a commit ends a partition's failures: a write alone succeeds even on a full disk (it is buffered), so
        // clearing them on a write would restart the backoff at 1 s before every commit that fails again.
        failures.succeeded(done.offsets().keySet());
        positions.committed(done.offsets());
        stages.committed(done.engineOffsets());
        metrics.committed(done.shards(), done.nanos());
        lastCommitNanos = System.nanoTime();
        store.closeIdle(config.index().idleClose()); // while no commit runs
    }

    /** After a store failure: waits for the poll being decoded and drops it, then {@link Recovery#recover}. */
    private void recover(StoreFailure f, Future<Decoder.Decoded> next) throws Exception {
        if (next != null) {
            try {
                next.get();
            } catch (ExecutionException e) {
                // dropped with the rest of the poll; it is decoded again after the rewind
            }
        }
        pending = null;
        recovery.recover(consumer, f);
    }

    private void endOffsets() {
        try {
            Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(2));
            end.forEach((tp, v) -> stages.durable(key(tp), v));
        } catch (TimeoutException e) {
            metrics.endOffsetsFailed();
        }
    }

    static String key(TopicPartition tp) {
        return CommitProtocol.key(tp);
    }

    /** The loop's side of a rebalance (on this thread, inside poll). */
    private final class AroundRebalance implements Rebalance.Loop {
        @Override
        public void commitWritten() throws Exception {
            writePending();
            commit();
        }

        @Override
        public boolean pausing() {
            return backpressure.pausing();
        }

        @Override
        public void endOffsets() {
            IndexLoop.this.endOffsets();
        }

        @Override
        public void assigned() {
            assigned = true;
        }
    }

    /** Stops intake, commits what was written, joins. Idempotent. */
    @Override
    public void close() throws InterruptedException {
        running = false; // the loop sees it within one poll (100 ms), then commits
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }
}
