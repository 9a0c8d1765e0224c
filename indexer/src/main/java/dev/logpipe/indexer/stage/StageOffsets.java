package dev.logpipe.indexer.stage;

import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * Per partition, how far each stage has come (invariant I7): DURABLE (the log end), READ (fetched by the indexer),
 * INDEXED (written to the index), QUERYABLE (visible to a refreshed searcher), and COMMITTED (in a Lucene commit and
 * then in Kafka). Offsets are "next offset" (everything below it has reached the stage); each stage also keeps the
 * Kafka timestamp of the newest record that reached it. Updates keep QUERYABLE <= INDEXED <= READ <= DURABLE and
 * COMMITTED <= INDEXED; {@link #snapshot} is consistent. Thread-safe.
 */
public final class StageOffsets {
    /** One in this many records is sampled for the freshness histogram. */
    public static final int SAMPLE_EVERY = 16;

    private static final int MAX_SAMPLES = 8192;

    private final InstantSource clock;
    private final Map<String, Partition> partitions = new TreeMap<>();

    public StageOffsets(InstantSource clock) {
        this.clock = clock;
    }

    /** A partition's state; start = the committed offset the consumer resumes from. */
    public synchronized void assigned(String partition, long start) {
        Partition p = partitions.computeIfAbsent(partition, k -> new Partition());
        p.durable = Math.max(p.durable, start);
        p.read = p.indexed = p.queryable = p.committed = start;
        p.samples.clear();
    }

    public synchronized void revoked(String partition) {
        partitions.remove(partition);
    }

    public synchronized void durable(String partition, long logEnd) {
        Partition p = partitions.get(partition);
        if (p != null) {
            p.durable = Math.max(p.durable, logEnd);
        }
    }

    public synchronized void read(String partition, long next, long timestamp) {
        Partition p = partitions.get(partition);
        if (p != null && next > p.read) {
            p.read = next;
            p.readTs = timestamp;
            p.durable = Math.max(p.durable, next);
        }
    }

    /** Records up to {@code next} are written to the index; {@code timestamp} is the newest one's. */
    public synchronized void indexed(String partition, long next, long timestamp) {
        Partition p = partitions.get(partition);
        if (p != null && next > p.indexed) {
            p.indexed = Math.min(next, p.read);
            p.indexedTs = timestamp;
        }
    }

    /** Remembers one written record's Kafka timestamp, to measure its freshness when it becomes queryable. */
    public synchronized void sample(String partition, long offset, long timestamp) {
        Partition p = partitions.get(partition);
        if (p != null && p.samples.size() < MAX_SAMPLES) {
            p.samples.add(new long[] {offset, timestamp});
        }
    }

    /** The INDEXED offsets now: what a refresh that starts after this call will make visible. */
    public synchronized Map<String, long[]> indexedSnapshot() {
        Map<String, long[]> out = new TreeMap<>();
        partitions.forEach((k, p) -> out.put(k, new long[] {p.indexed, p.indexedTs}));
        return out;
    }

    /**
     * A refresh that started after {@code snapshot} was taken has finished; freshness samples go to {@code sink} (ms).
     *
     * @return the Kafka timestamp of the newest record this made queryable, or {@link Long#MIN_VALUE} when it made
     *     nothing new queryable
     */
    public long queryable(Map<String, long[]> snapshot, LongConsumer freshnessMillis) {
        long now = clock.millis();
        List<Long> fresh = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        synchronized (this) {
            for (Map.Entry<String, long[]> e : snapshot.entrySet()) {
                Partition p = partitions.get(e.getKey());
                long[] v = e.getValue();
                if (p != null && v[0] > p.queryable) {
                    p.queryable = Math.min(v[0], p.indexed);
                    p.queryableTs = v[1];
                    newest = Math.max(newest, v[1]);
                    while (!p.samples.isEmpty() && p.samples.peekFirst()[0] < p.queryable) {
                        fresh.add(now - p.samples.pollFirst()[1]);
                    }
                }
            }
        }
        fresh.forEach(freshnessMillis::accept);
        return newest;
    }

    public synchronized void committed(Map<String, Long> offsets) {
        offsets.forEach((k, v) -> {
            Partition p = partitions.get(k);
            if (p != null && v > p.committed) {
                p.committed = Math.min(v, p.indexed);
                p.committedTs = p.indexed == v ? p.indexedTs : p.committedTs;
            }
        });
    }

    /** A consistent copy of every partition's stages. */
    public synchronized List<PartitionStages> snapshot() {
        long now = clock.millis();
        List<PartitionStages> out = new ArrayList<>();
        partitions.forEach((k, p) -> out.add(new PartitionStages(
                k,
                p.durable,
                p.read,
                p.indexed,
                p.queryable,
                p.committed,
                age(now, p.read == p.durable ? p.readTs : -1),
                age(now, p.readTs),
                age(now, p.indexedTs),
                age(now, p.queryableTs),
                age(now, p.committedTs))));
        return out;
    }

    private static Double age(long now, long ts) {
        return ts <= 0 ? null : Math.max(0, now - ts) / 1000.0;
    }

    private static final class Partition {
        long durable;
        long read;
        long indexed;
        long queryable;
        long committed;
        long readTs;
        long indexedTs;
        long queryableTs;
        long committedTs;
        final ArrayDeque<long[]> samples = new ArrayDeque<>();
    }
}
