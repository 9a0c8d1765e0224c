package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import dev.logpipe.record.RecordCodec;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Splits and decodes polls on its own thread, {@code indexer-decode}, while the loop writes the previous one, and has
 * the store prepare the records for their write ({@link ShardStore#prepare}: OpenSearch's bulk lines are encoded here,
 * not on the loop, so the cluster is not left waiting while they are built). A poll is READ when it is handed over;
 * the loop keeps at most one decoded poll waiting. {@link #close} stops the thread.
 */
final class Decoder implements AutoCloseable {
    /** A poll, what it decoded to, and its records as the store prepared them, waiting to be written. */
    record Decoded(ConsumerRecords<byte[], byte[]> polled, PollBatch batch, ShardStore.Prepared prepared) {}

    private final IndexerConfig.Kafka kafka;
    private final ShardStore store;
    private final Router router;
    private final DeadLetters deadLetters;
    private final IndexerMetrics metrics;
    private final StageOffsets stages;
    private final InstantSource clock;
    private final RecordCodec codec = new RecordCodec();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "indexer-decode");
        t.setDaemon(true);
        return t;
    });

    Decoder(
            IndexerConfig config,
            ShardStore store,
            DeadLetters deadLetters,
            IndexerMetrics metrics,
            StageOffsets stages,
            InstantSource clock) {
        this.kafka = config.kafka();
        this.store = store;
        this.router = new Router(config.index().maxFutureSkew(), config.retention(), clock);
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.stages = stages;
        this.clock = clock;
    }

    /** Marks the poll READ and hands its splitting and decoding to the decode thread. */
    Future<Decoded> decode(ConsumerRecords<byte[], byte[]> polled) {
        for (TopicPartition tp : polled.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = polled.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            stages.read(IndexLoop.key(tp), last.offset() + 1, last.timestamp());
        }
        String recordsTopic = kafka.topic();
        return thread.submit(() -> {
            PollBatch batch =
                    new PollBatch(codec, router, deadLetters, metrics, clock.instant(), kafka.defaultTenant());
            for (TopicPartition tp : polled.partitions()) {
                boolean records = tp.topic().equals(recordsTopic);
                for (ConsumerRecord<byte[], byte[]> m : polled.records(tp)) {
                    if (records) {
                        batch.addRecords(m);
                    } else {
                        batch.addDeadLetter(m);
                    }
                }
            }
            return new Decoded(polled, batch, store.prepare(batch.records));
        });
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
