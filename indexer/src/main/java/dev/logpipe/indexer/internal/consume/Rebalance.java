package dev.logpipe.indexer.internal.consume;

import dev.logpipe.indexer.stage.StageOffsets;
import java.util.Collection;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits what was written before partitions go, and starts each assigned partition's stages at its position; with
 * {@code rebuild} (a corrupt shard was moved aside) the first assignment reads from the beginning. Called by the
 * consumer inside {@code poll}, on the loop thread.
 */
final class Rebalance implements ConsumerRebalanceListener {
    /** Under the loop's name, as before the loop was split: operators' log settings name it. */
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);

    /** What the loop does around a rebalance. */
    interface Loop {
        /** Writes the decoded poll waiting, then index-then-commits everything written, synchronously. */
        void commitWritten() throws Exception;

        /** Whether every partition is paused now ({@link Backpressure}): new ones are paused too. */
        boolean pausing();

        /** Reads the assigned partitions' end offsets (DURABLE). */
        void endOffsets();

        /** The loop has its partitions: it is ready. */
        void assigned();
    }

    private final Consumer<?, ?> consumer;
    private final Loop loop;
    private final Positions positions;
    private final StageOffsets stages;
    private final WriteFailures failures;
    private final boolean rebuild;
    private boolean rebuilt;

    Rebalance(
            Consumer<?, ?> consumer,
            Loop loop,
            Positions positions,
            StageOffsets stages,
            WriteFailures failures,
            boolean rebuild) {
        this.consumer = consumer;
        this.loop = loop;
        this.positions = positions;
        this.stages = stages;
        this.failures = failures;
        this.rebuild = rebuild;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        try {
            loop.commitWritten();
        } catch (Exception e) {
            throw new IllegalStateException("commit before a rebalance failed: " + e, e);
        }
        partitions.forEach(tp -> {
            positions.revoked(tp);
            stages.revoked(IndexLoop.key(tp));
        });
        failures.revoked(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (rebuild && !rebuilt) {
            rebuilt = true;
            log.warn("rebuilding moved-aside shards: reading {} partitions from their beginning", partitions.size());
            consumer.seekToBeginning(partitions);
        }
        for (TopicPartition tp : partitions) {
            long position = consumer.position(tp);
            positions.assigned(tp, position);
            stages.assigned(IndexLoop.key(tp), position);
        }
        if (loop.pausing()) { // a paused loop stays paused on what it gets now
            consumer.pause(partitions);
        }
        loop.endOffsets(); // DURABLE is known before the status first answers, not a second later
        loop.assigned();
    }
}
