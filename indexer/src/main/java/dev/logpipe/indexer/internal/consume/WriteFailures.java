package dev.logpipe.indexer.internal.consume;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Partitions paused because the index store failed to write or commit their records (a disk error, an index writer
 * closed by an earlier failure): each waits out a backoff that doubles with every failure in a row, from
 * {@link #FIRST_BACKOFF} up to {@link #MAX_BACKOFF}, and is cleared when a commit of its offsets succeeds (a write
 * alone proves nothing: it is buffered, and the commit after it may fail again). Updated by
 * the loop thread, read by the status API: thread-safe.
 */
public final class WriteFailures {
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

    /**
     * A partition paused after a store failure.
     *
     * @param failures failures in a row; the backoff before the next try doubles with each
     * @param retryAt  when the partition is resumed to try again
     */
    public record Paused(String partition, String shard, String reason, int failures, Instant since, Instant retryAt) {}

    private final Map<TopicPartition, Paused> paused =
            new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                    ? Integer.compare(a.partition(), b.partition())
                    : a.topic().compareTo(b.topic()));

    /** Records a failure of the partition's records; returns the backoff before it is resumed. */
    synchronized Duration failed(TopicPartition tp, String shard, String reason, Instant now) {
        Paused before = paused.get(tp);
        int n = before == null ? 1 : before.failures() + 1;
        Duration backoff = FIRST_BACKOFF.multipliedBy(1L << Math.min(n - 1, 20));
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
            backoff = MAX_BACKOFF;
        }
        paused.put(
                tp,
                new Paused(
                        IndexLoop.key(tp), shard, reason, n, before == null ? now : before.since(), now.plus(backoff)));
        return backoff;
    }

    /** The paused partitions whose backoff is over: the caller resumes them (a new failure pauses them again). */
    synchronized List<TopicPartition> due(Instant now) {
        List<TopicPartition> out = new ArrayList<>();
        paused.forEach((tp, p) -> {
            if (!now.isBefore(p.retryAt())) {
                out.add(tp);
            }
        });
        return out;
    }

    /** Whether the partition waits out a backoff now (not yet due). */
    synchronized boolean waiting(TopicPartition tp, Instant now) {
        Paused p = paused.get(tp);
        return p != null && now.isBefore(p.retryAt());
    }

    /** The partitions' offsets were committed (index, then Kafka): their failures are over. */
    synchronized void succeeded(Collection<TopicPartition> tps) {
        if (!paused.isEmpty()) {
            tps.forEach(paused::remove);
        }
    }

    synchronized void revoked(Collection<TopicPartition> tps) {
        tps.forEach(paused::remove);
    }

    public synchronized List<Paused> snapshot() {
        return List.copyOf(paused.values());
    }

    public synchronized int size() {
        return paused.size();
    }
}
