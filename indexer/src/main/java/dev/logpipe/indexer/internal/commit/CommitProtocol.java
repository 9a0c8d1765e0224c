package dev.logpipe.indexer.internal.commit;

import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Index-then-commit (docs/indexer.md#commit-protocol): the engine commit of offsets taken after their records were
 * written, then, only once it returned, the Kafka commit of the same offsets. A failed engine commit never reaches
 * Kafka, and a crash between the two leaves Kafka behind the engine: the records are read again (a replay, which the
 * engine's upserts absorb), never skipped.
 *
 * <p>At most one commit is in flight. {@link #start} and {@link #finish} are called from the loop thread, which keeps
 * writing meanwhile; the dead-letter wait and the engine commit run on {@code indexer-commit}; the Kafka commit and
 * {@link Committed} run on the loop thread. {@link #close} stops the commit thread.
 */
public final class CommitProtocol implements AutoCloseable {
    /** The Kafka commit of the offsets the engine made durable ({@code consumer::commitSync}). */
    @FunctionalInterface
    public interface OffsetCommit {
        void commit(Map<TopicPartition, OffsetAndMetadata> offsets);
    }

    /** Waits until every dead letter sent so far is durable; it runs before the engine commit. */
    @FunctionalInterface
    public interface DeadLetterWait {
        void await() throws InterruptedException, ExecutionException;
    }

    /** Called on the loop thread once both commits are done. */
    @FunctionalInterface
    public interface Committed {
        void committed(Done done) throws IOException;
    }

    /**
     * A finished commit.
     *
     * @param offsets the Kafka offsets committed (the next offset to read per partition)
     * @param engineOffsets the same, keyed as the engine stores them ({@code topic-partition})
     * @param shards the shards the engine committed
     * @param nanos from {@link #start} to the end of the Kafka commit
     */
    public record Done(Map<TopicPartition, Long> offsets, Map<String, Long> engineOffsets, int shards, long nanos) {
        public Done {
            offsets = Map.copyOf(offsets);
            engineOffsets = Map.copyOf(engineOffsets);
        }
    }

    /** An engine commit started on the commit thread: the offsets it covers and when it started. */
    private record InFlight(
            Future<Integer> engine,
            Map<TopicPartition, Long> offsets,
            Map<String, Long> engineOffsets,
            long startedNanos) {}

    private final ShardStore store;
    private final DeadLetterWait deadLetters;
    private final OffsetCommit kafka;
    private final Committed committed;
    private final ExecutorService committer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "indexer-commit");
        t.setDaemon(true);
        return t;
    });
    /** The engine commit in flight, or null. */
    private InFlight inFlight;

    public CommitProtocol(ShardStore store, DeadLetterWait deadLetters, OffsetCommit kafka, Committed committed) {
        this.store = store;
        this.deadLetters = deadLetters;
        this.kafka = kafka;
        this.committed = committed;
    }

    /**
     * Starts the engine commit of {@code written} (per partition, the next offset after the last record written) on
     * the commit thread, unless one is in flight. The offsets are copied now, so they cover only records written
     * before this call. Returns false when there is nothing to commit.
     *
     * @throws IllegalStateException a commit is in flight
     */
    public boolean start(Map<TopicPartition, Long> written) {
        return start(written, false);
    }

    /**
     * As {@link #start(Map)}; with {@code evenIfEmpty}, an engine commit also when no record was written (for records
     * housekeeping wrote, a restore into the hot tier), the Kafka commit then being empty.
     */
    public boolean start(Map<TopicPartition, Long> written, boolean evenIfEmpty) {
        if (inFlight != null) {
            throw new IllegalStateException("a commit is in flight: finish it first");
        }
        if (written.isEmpty() && !evenIfEmpty) {
            return false;
        }
        long started = System.nanoTime();
        Map<TopicPartition, Long> offsets = Map.copyOf(written);
        Map<String, Long> engineOffsets = new HashMap<>();
        offsets.forEach((tp, next) -> engineOffsets.put(key(tp), next));
        inFlight = new InFlight(
                committer.submit(() -> {
                    deadLetters.await();
                    try {
                        return store.commit(engineOffsets);
                    } catch (IOException | RuntimeException e) {
                        throw new StoreFailure(offsets.keySet(), "(commit)", e);
                    }
                }),
                offsets,
                engineOffsets,
                started);
        return true;
    }

    /** Whether an engine commit was started and not yet finished. */
    public boolean inFlight() {
        return inFlight != null;
    }

    /**
     * When the engine commit in flight is done (or, with {@code wait}, once it is): then, and only then, the Kafka
     * commit of its offsets, then {@link Committed}. Does nothing without a commit in flight, or when it is still
     * running and {@code wait} is false.
     *
     * @throws StoreFailure the engine commit failed: nothing was committed to Kafka
     * @throws ExecutionException the dead-letter wait failed (a dead letter the broker refused)
     */
    public void finish(boolean wait) throws StoreFailure, InterruptedException, ExecutionException, IOException {
        InFlight c = inFlight;
        if (c == null || (!wait && !c.engine().isDone())) {
            return;
        }
        inFlight = null;
        int shards;
        try {
            shards = c.engine().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause(); // what the commit thread threw, as if it ran here
            if (cause instanceof StoreFailure f) {
                throw f;
            } else if (cause instanceof InterruptedException i) {
                throw i;
            } else if (cause instanceof ExecutionException x) {
                throw x;
            } else if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        c.offsets().forEach((tp, next) -> commit.put(tp, new OffsetAndMetadata(next)));
        kafka.commit(commit);
        committed.committed(new Done(c.offsets(), c.engineOffsets(), shards, System.nanoTime() - c.startedNanos()));
    }

    /** The engine's key of a partition's offset: {@code topic-partition}. */
    public static String key(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    /** Stops the commit thread; an engine commit in flight is interrupted and its offsets never reach Kafka. */
    @Override
    public void close() {
        committer.shutdownNow();
    }
}
