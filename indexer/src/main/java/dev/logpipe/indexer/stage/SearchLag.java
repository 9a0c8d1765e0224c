package dev.logpipe.indexer.stage;

import java.util.List;

/**
 * How far search is behind Kafka over the record partitions of a snapshot (dead-letter partitions left out): the
 * records durable in Kafka that are not searchable yet (QUERYABLE behind DURABLE, summed), and, while any wait, the
 * age in seconds of the newest searchable record of the partition furthest behind (0 when none wait; NaN when a
 * partition that waits has no searchable record yet).
 */
public record SearchLag(long records, double seconds) {
    /** The lag of {@code partitions}, leaving out those whose name starts with {@code deadLetterTopic + "-"}. */
    public static SearchLag of(List<PartitionStages> partitions, String deadLetterTopic) {
        long records = 0;
        double seconds = 0;
        for (PartitionStages p : partitions) {
            if (p.partition().startsWith(deadLetterTopic + "-") || p.durable() <= p.queryable()) {
                continue;
            }
            records += p.durable() - p.queryable();
            seconds = p.queryableAge() == null ? Double.NaN : Math.max(seconds, p.queryableAge());
        }
        return new SearchLag(records, seconds);
    }
}
