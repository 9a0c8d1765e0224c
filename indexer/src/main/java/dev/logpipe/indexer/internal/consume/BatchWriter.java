package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.internal.commit.StoreFailure;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes one decoded poll to the store: its records ({@link ShardStore#writeAll}: shard by shard, or together where the
 * engine takes several indices in one request), then the dead letters read from the dead-letter topic. A record the store refuses goes to the dead-letter topic ({@code INDEX_REJECTED}, with the store's reason);
 * a failure of the store itself is a {@link StoreFailure} naming the partitions whose records failed. Only once the
 * whole poll is written do its offsets count as written (INDEXED, and covered by the next commit). Loop thread only.
 */
final class BatchWriter {
    private final ShardStore store;
    private final DeadLetters deadLetters;
    private final IndexerMetrics metrics;
    private final StageOffsets stages;
    private final Positions positions;
    private final String deadLetterTopic;

    BatchWriter(
            ShardStore store,
            DeadLetters deadLetters,
            IndexerMetrics metrics,
            StageOffsets stages,
            Positions positions,
            String deadLetterTopic) {
        this.store = store;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.stages = stages;
        this.positions = positions;
        this.deadLetterTopic = deadLetterTopic;
    }

    void write(Decoder.Decoded decoded) throws StoreFailure {
        ConsumerRecords<byte[], byte[]> polled = decoded.polled();
        PollBatch batch = decoded.batch();
        long written = 0;
        Map<ShardId, ShardStore.Written> all;
        try {
            all = store.writeAll(decoded.prepared());
        } catch (ShardStore.WriteFailed ex) {
            // the shard's partitions; all of the poll's record partitions when the engine wrote several shards at once
            Set<TopicPartition> from = new HashSet<>();
            for (ShardId shard : ex.shard().map(Set::of).orElse(batch.records.keySet())) {
                batch.origins.get(shard).forEach(o -> from.add(new TopicPartition(o.topic(), o.partition())));
            }
            throw new StoreFailure(from, ex.location(), ex.getCause());
        } catch (RuntimeException ex) {
            Set<TopicPartition> from = new HashSet<>();
            batch.origins
                    .values()
                    .forEach(os -> os.forEach(o -> from.add(new TopicPartition(o.topic(), o.partition()))));
            throw new StoreFailure(from, batch.records.size() + " shards", ex);
        }
        for (Map.Entry<ShardId, List<IndexRecord>> e : batch.records.entrySet()) {
            ShardStore.Written w = all.get(e.getKey());
            List<ShardStore.Rejection> rejected = w.rejections();
            written += e.getValue().size() - rejected.size();
            if (w.fieldsNotIndexed() > 0) {
                metrics.fieldsNotIndexed(e.getKey().tenant(), w.fieldsNotIndexed());
            }
            for (ShardStore.Rejection r : rejected) {
                IndexRecord rec = e.getValue().get(r.index());
                PollBatch.Origin o = batch.origins.get(e.getKey()).get(r.index());
                metrics.deadLettered("INDEX_REJECTED");
                deadLetters.publish("INDEX_REJECTED", r.reason(), o, rec.source(), rec.offset(), rec.length());
            }
        }
        for (Map.Entry<ShardId, List<DeadLetterEntry>> e : batch.deadLetterDocs.entrySet()) {
            List<ShardStore.Rejection> rejected;
            try {
                rejected = store.writeDeadLetters(e.getKey(), e.getValue());
            } catch (IOException | RuntimeException ex) {
                Set<TopicPartition> from = new HashSet<>();
                polled.partitions().stream()
                        .filter(tp -> tp.topic().equals(deadLetterTopic))
                        .forEach(from::add);
                throw new StoreFailure(from, store.location(e.getKey()), ex);
            }
            rejected.forEach(r -> metrics.deadLettersSkipped("INDEX_REJECTED"));
            metrics.deadLettersIndexed(e.getValue().size() - rejected.size());
        }
        metrics.indexed(written);
        for (TopicPartition tp : polled.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = polled.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            positions.written(tp, last.offset() + 1);
            String k = IndexLoop.key(tp);
            for (ConsumerRecord<byte[], byte[]> m : list) {
                if (m.offset() % StageOffsets.SAMPLE_EVERY == 0) {
                    stages.sample(k, m.offset(), m.timestamp());
                }
            }
            stages.indexed(k, last.offset() + 1, last.timestamp());
        }
        positions.counted(polled.count());
    }
}
