package dev.logpipe.indexer.consume;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.DeadLetterEntry;
import dev.logpipe.index.store.IndexRecord;
import dev.logpipe.index.store.LuceneStore;
import dev.logpipe.index.store.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.metrics.IndexerMetrics;
import dev.logpipe.indexer.retention.Retention;
import dev.logpipe.indexer.stage.StageOffsets;
import dev.logpipe.record.RecordCodec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The indexer's one consumer thread: poll, split, route, write, and periodically index-then-commit (seed 003 chapter
 * 05): Lucene-commit every dirty shard with the offsets, <em>then</em> commit the same offsets to Kafka. Dead letters
 * are awaited before either. Retention runs here too, so no other thread ever closes a shard being written.
 *
 * <p>Splitting and decoding a poll runs on a second thread ({@code indexer-decode}) while this thread writes the
 * previous poll: at most one decoded poll waits, and its offsets count as processed only once it is written.
 *
 * <p>Memory is bounded by {@code max_poll_records} records of one poll (processed before the next), the consumer's
 * {@code fetch_max_bytes} and the index RAM buffer; the loop never queues work. {@link #close} stops intake, commits
 * what was written, and joins.
 */
public final class IndexLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IndexLoop.class);
    /** Test seam for the crash test: a pause between the Lucene commit and the Kafka commit (never set in production). */
    static final long PAUSE_BEFORE_KAFKA_COMMIT_MS = Long.getLong("logpipe.indexer.pauseBeforeKafkaCommitMs", 0);

    private final IndexerConfig config;
    private final LuceneStore store;
    private final StageOffsets stages;
    private final IndexerMetrics metrics;
    private final Retention retention;
    private final InstantSource clock;
    private final RecordCodec codec = new RecordCodec();
    private final Router router;
    private final boolean rebuild;
    private final Thread thread;
    private final Map<TopicPartition, Long> processed = new HashMap<>();
    private volatile boolean running = true;
    private volatile boolean assigned;
    private volatile Throwable failure;
    private KafkaConsumer<byte[], byte[]> consumer;
    private DeadLetters deadLetters;
    private long sinceCommit;
    private long lastCommitNanos = System.nanoTime();
    private long lastEndOffsetsNanos;
    private final java.util.concurrent.ExecutorService decoder = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
                Thread t = new Thread(r, "indexer-decode");
                t.setDaemon(true);
                return t;
            });
    /** The decoded poll not yet written, or null. */
    private java.util.concurrent.Future<Decoded> pending;

    private record Decoded(ConsumerRecords<byte[], byte[]> polled, PollBatch batch) {
    }

    /** @param rebuild replay every partition from its beginning (a corrupt shard was moved aside) */
    public IndexLoop(IndexerConfig config, LuceneStore store, StageOffsets stages, IndexerMetrics metrics,
                     Retention retention, InstantSource clock, boolean rebuild) {
        this.config = config;
        this.store = store;
        this.stages = stages;
        this.metrics = metrics;
        this.retention = retention;
        this.clock = clock;
        this.rebuild = rebuild;
        this.router = new Router(config.index().maxFutureSkew(), config.retention(), clock);
        this.thread = new Thread(this::run, "indexer-loop");
    }

    public void start() {
        thread.start();
    }

    public boolean ready() {
        return assigned && failure == null && thread.isAlive();
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
        Map<String, Object> p = new HashMap<>(k.properties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, k.groupId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, k.maxPollRecords());
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, k.fetchMaxBytes());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "logpipe-indexer");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private void run() {
        try {
            deadLetters = new DeadLetters(config.kafka().bootstrapServers(), config.kafka().deadLetterTopic(),
                    config.kafka().properties());
            consumer = consumer();
            consumer.subscribe(List.of(config.kafka().topic(), config.kafka().deadLetterTopic()), new Rebalance());
            while (running) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(pending == null ? 100 : 5));
                java.util.concurrent.Future<Decoded> next = polled.isEmpty() ? null : decode(polled);
                writePending();
                pending = next;
                long now = System.nanoTime();
                if (sinceCommit > 0 && (now - lastCommitNanos >= config.commit().interval().toNanos()
                        || sinceCommit >= config.commit().maxRecords())) {
                    commit();
                }
                if (now - lastEndOffsetsNanos >= TimeUnit.SECONDS.toNanos(1)) {
                    lastEndOffsetsNanos = now;
                    endOffsets();
                    retention.runIfDue();
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
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
            }
            if (deadLetters != null) {
                deadLetters.close();
            }
            decoder.shutdownNow();
        }
    }

    /** Marks the poll READ and hands its splitting and decoding to the decode thread. */
    private java.util.concurrent.Future<Decoded> decode(ConsumerRecords<byte[], byte[]> polled) {
        for (TopicPartition tp : polled.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = polled.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            stages.read(key(tp), last.offset() + 1, last.timestamp());
        }
        String recordsTopic = config.kafka().topic();
        return decoder.submit(() -> {
            PollBatch batch = new PollBatch(codec, router, deadLetters, metrics, clock.instant());
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
            return new Decoded(polled, batch);
        });
    }

    /** Writes the decoded poll waiting, if any; only then do its offsets count as processed. */
    private void writePending() throws Exception {
        if (pending == null) {
            return;
        }
        Decoded d;
        try {
            d = pending.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("decoding a poll failed: " + e.getCause(), e.getCause());
        } finally {
            pending = null;
        }
        write(d.polled(), d.batch());
    }

    private void write(ConsumerRecords<byte[], byte[]> polled, PollBatch batch) throws Exception {
        long written = 0;
        for (Map.Entry<ShardId, List<IndexRecord>> e : batch.records.entrySet()) {
            List<ShardStore.Rejection> rejected = store.write(e.getKey(), e.getValue());
            written += e.getValue().size() - rejected.size();
            for (ShardStore.Rejection r : rejected) {
                IndexRecord rec = e.getValue().get(r.index());
                PollBatch.Origin o = batch.origins.get(e.getKey()).get(r.index());
                metrics.deadLettered("INDEX_REJECTED");
                deadLetters.publish("INDEX_REJECTED", r.reason(), o.tenant(), rec.source(), rec.offset(),
                        rec.length(), o.topic(), o.partition(), o.offset(), clock.instant());
            }
        }
        for (Map.Entry<ShardId, List<DeadLetterEntry>> e : batch.deadLetterDocs.entrySet()) {
            List<ShardStore.Rejection> rejected = store.writeDeadLetters(e.getKey(), e.getValue());
            rejected.forEach(r -> metrics.deadLettersSkipped("INDEX_REJECTED"));
            metrics.deadLettersIndexed(e.getValue().size() - rejected.size());
        }
        metrics.indexed(written);
        for (TopicPartition tp : polled.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = polled.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            processed.put(tp, last.offset() + 1);
            String k = key(tp);
            for (ConsumerRecord<byte[], byte[]> m : list) {
                if (m.offset() % StageOffsets.SAMPLE_EVERY == 0) {
                    stages.sample(k, m.offset(), m.timestamp());
                }
            }
            stages.indexed(k, last.offset() + 1, last.timestamp());
        }
        sinceCommit += polled.count();
    }

    /** Index-then-commit: dead letters durable, then every dirty shard's Lucene commit, then the Kafka commit. */
    private void commit() throws Exception {
        if (processed.isEmpty() || consumer == null) {
            return;
        }
        long started = System.nanoTime();
        deadLetters.awaitAll();
        Map<String, Long> offsets = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> kafka = new HashMap<>();
        processed.forEach((tp, next) -> {
            offsets.put(key(tp), next);
            kafka.put(tp, new OffsetAndMetadata(next));
        });
        int shards = store.dirtyShards().size();
        store.commit(offsets);
        if (PAUSE_BEFORE_KAFKA_COMMIT_MS > 0) {
            log.info("index committed, committing offsets");
            Thread.sleep(PAUSE_BEFORE_KAFKA_COMMIT_MS);
        }
        consumer.commitSync(kafka);
        stages.committed(offsets);
        metrics.committed(shards, System.nanoTime() - started);
        sinceCommit = 0;
        lastCommitNanos = System.nanoTime();
        store.closeIdle(config.index().idleClose());
    }

    private void endOffsets() {
        try {
            Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(2));
            end.forEach((tp, v) -> stages.durable(key(tp), v));
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            metrics.endOffsetsFailed();
        }
    }

    static String key(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
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
                processed.remove(tp);
                stages.revoked(key(tp));
            });
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (rebuild && !rebuilt) {
                rebuilt = true;
                log.warn("rebuilding moved-aside shards: reading {} partitions from their beginning",
                        partitions.size());
                consumer.seekToBeginning(partitions);
            }
            for (TopicPartition tp : partitions) {
                stages.assigned(key(tp), consumer.position(tp));
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
