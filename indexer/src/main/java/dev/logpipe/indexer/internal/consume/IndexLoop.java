package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.internal.commit.CommitProtocol;
import dev.logpipe.indexer.internal.commit.StoreFailure;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.Retention;
import dev.logpipe.indexer.stage.StageOffsets;
import dev.logpipe.kafka.CommittingConsumer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The indexer's one consumer thread: poll, split, route, write, and periodically index-then-commit
 * (docs/indexer.md, commit protocol): commit the store (every shard written since its last commit) with the offsets,
 * <em>then</em> commit the same offsets to Kafka. Dead letters
 * are awaited before either. Retention runs here too, so no other thread ever closes a shard being written.
 *
 * <p>Splitting and decoding a poll runs on a second thread ({@code indexer-decode}) while this thread writes the
 * previous poll: at most one decoded poll waits, and its offsets count as processed only once it is written.
 *
 * <p>The commits follow {@link CommitProtocol}: the engine commit runs on a third thread ({@code indexer-commit}) while
 * this one keeps writing; its offsets are taken here before it starts (so they cover only written records), and the
 * Kafka commit of the same offsets follows here once it is done. One commit is in flight at a time.
 *
 * <p>Memory is bounded by {@code max_poll_records} records of one poll (processed before the next), the consumer's
 * {@code fetch_max_bytes} and the index RAM buffer; the loop never queues work, and pauses every partition while the
 * store is behind ({@link #backpressure}). {@link #close} stops intake, commits what was written, and joins.
 *
 * <p>When the store fails to write or commit (a disk error, an index writer closed by an earlier failure), the loop
 * does not stop: it drops every write since the last commit, rewinds every partition to its last committed offset,
 * and pauses the partitions whose records failed with a growing backoff ({@link WriteFailures}); the others go on
 * (docs/indexer.md#when-the-index-store-fails). A record the store refuses on its own is a dead letter, as before.
 */
public final class IndexLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);

    private final IndexerConfig config;
    private final ShardStore store;
    private final StageOffsets stages;
    private final IndexerMetrics metrics;
    private final Retention retention;
    private final InstantSource clock;
    private final boolean rebuild;
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
    /** Why every assigned partition is paused, or null while consuming. */
    private String pausedFor;
    /** Partitions paused after a store failure, with their backoff. */
    private final WriteFailures failures = new WriteFailures();

    /** @param rebuild replay every partition from its beginning (a corrupt shard was moved aside) */
    public IndexLoop(
            IndexerConfig config,
            ShardStore store,
            StageOffsets stages,
            IndexerMetrics metrics,
            Retention retention,
            InstantSource clock,
            boolean rebuild) {
        this.config = config;
        this.store = store;
        this.stages = stages;
        this.metrics = metrics;
        this.retention = retention;
        this.clock = clock;
        this.rebuild = rebuild;
        this.thread = new Thread(this::run, "indexer-loop");
        this.commits = new CommitProtocol(
                store, () -> deadLetters.awaitAll(), offsets -> consumer.commitSync(offsets), this::committed);
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

    private KafkaConsumer<byte[], byte[]> consumer() {
        IndexerConfig.Kafka k = config.kafka();
        Map<String, Object> p = CommittingConsumer.settings(
                k.properties(),
                k.bootstrapServers(),
                k.groupId(),
                Map.of(
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        k.maxPollRecords(),
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                        k.fetchMaxBytes()));
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "logpipe-indexer");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private void run() {
        try {
            deadLetters = new DeadLetters(
                    config.kafka().bootstrapServers(),
                    config.kafka().deadLetterTopic(),
                    config.kafka().properties());
            decoder = new Decoder(config, deadLetters, metrics, stages, clock);
            writer = new BatchWriter(
                    store,
                    deadLetters,
                    metrics,
                    stages,
                    positions,
                    config.kafka().deadLetterTopic());
            if (!new TopicWait(config.kafka().bootstrapServers(), config.kafka().properties(), Duration.ofSeconds(30))
                    .await(List.of(config.kafka().topic(), config.kafka().deadLetterTopic()), () -> running)) {
                return;
            }
            consumer = consumer();
            consumer.subscribe(List.of(config.kafka().topic(), config.kafka().deadLetterTopic()), new Rebalance());
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
                resumeDue();
                backpressure();
                long now = System.nanoTime();
                if (!commits.inFlight()
                        && positions.sinceCommit() > 0
                        && (now - lastCommitNanos >= config.commit().interval().toNanos()
                                || positions.sinceCommit() >= config.commit().maxRecords())) {
                    startCommit();
                }
                if (now - lastEndOffsetsNanos >= TimeUnit.SECONDS.toNanos(1)) {
                    lastEndOffsetsNanos = now;
                    endOffsets();
                    if (!commits.inFlight()) { // retention closes and deletes shards: never under a commit
                        retention.runIfDue();
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
        if (consumer == null || !commits.start(positions.written())) {
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

    /**
     * Pauses every assigned partition while the store is behind, so the indexer reads slower instead of growing: a
     * commit is still running when the next one is due by count ({@code commit.max_records} written since), or the
     * store's {@link ShardStore#backlog backlog} is over twice its budget (Lucene: the open shards' indexing RAM against
     * {@code index.ram_buffer}; flushes falling behind; resumed at once it is back under it). The loop keeps polling meanwhile, so the group keeps its partitions.
     */
    private void backpressure() {
        String why = null;
        if (commits.inFlight() && positions.sinceCommit() >= config.commit().maxRecords()) {
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

    /**
     * After a store failure: waits for the decode and the commit in flight, drops every write since the last commit
     * (the store's open shards are closed without committing), rewinds every assigned partition to its last committed
     * offset, and pauses the failed partitions until their backoff is over. Nothing is lost: the records are read
     * again from Kafka, and no offset past them was committed.
     */
    private void recover(StoreFailure f, Future<Decoder.Decoded> next) throws Exception {
        if (next != null) {
            try {
                next.get();
            } catch (ExecutionException e) {
                // dropped with the rest of the poll; it is decoded again after the rewind
            }
        }
        pending = null;
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
                stages.assigned(key(tp), to);
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

    /** Resumes the partitions paused after a store failure whose backoff is over (unless all are paused). */
    private void resumeDue() {
        if (failures.size() == 0 || pausedFor != null) {
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

    /** Commits before partitions go (a rebalance), and starts each assigned partition's stages at its position. */
    private final class Rebalance implements ConsumerRebalanceListener {
        private boolean rebuilt;

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            try {
                writePending();
                commit();
            } catch (Exception e) {
                throw new IllegalStateException("commit before a rebalance failed: " + e, e);
            }
            partitions.forEach(tp -> {
                positions.revoked(tp);
                stages.revoked(key(tp));
            });
            failures.revoked(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (rebuild && !rebuilt) {
                rebuilt = true;
                log.warn(
                        "rebuilding moved-aside shards: reading {} partitions from their beginning", partitions.size());
                consumer.seekToBeginning(partitions);
            }
            for (TopicPartition tp : partitions) {
                long position = consumer.position(tp);
                positions.assigned(tp, position);
                stages.assigned(key(tp), position);
            }
            if (pausedFor != null) { // a paused loop stays paused on what it gets now
                consumer.pause(partitions);
            }
            endOffsets(); // DURABLE is known before the status first answers, not a second later
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
