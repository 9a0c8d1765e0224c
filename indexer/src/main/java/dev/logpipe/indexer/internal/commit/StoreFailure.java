package dev.logpipe.indexer.internal.commit;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The index store failed to write or commit the records of these partitions (every partition of a commit); nothing is
 * lost yet: no offset past them reached Kafka, and the loop reads them again after it rolled the store back.
 */
public final class StoreFailure extends Exception {
    private final Set<TopicPartition> partitions;
    private final String shard;

    /** @param shard where it failed, for messages: a shard's location, or {@code (commit)} */
    public StoreFailure(Set<TopicPartition> partitions, String shard, Throwable cause) {
        super(cause.toString(), cause);
        this.partitions = Set.copyOf(partitions);
        this.shard = shard;
    }

    public Set<TopicPartition> partitions() {
        return partitions;
    }

    public String shard() {
        return shard;
    }
}
