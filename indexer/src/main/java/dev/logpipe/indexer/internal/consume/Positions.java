package dev.logpipe.indexer.internal.consume;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the loop stands on each assigned partition: the next offset after the records written (what the next commit
 * covers), the offset its last Kafka commit or its assignment left it at (where a store failure rewinds it), and how
 * many Kafka messages were written since the last commit started. Loop thread only.
 */
final class Positions {
    private final Map<TopicPartition, Long> written = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private long sinceCommit;

    /** Every record of {@code tp} before {@code next} is in the store. */
    void written(TopicPartition tp, long next) {
        written.put(tp, next);
    }

    /** A poll of {@code messages} Kafka messages was written. */
    void counted(int messages) {
        sinceCommit += messages;
    }

    /** Per partition, the next offset after the records written; the commit protocol copies it when a commit starts. */
    Map<TopicPartition, Long> written() {
        return written;
    }

    long sinceCommit() {
        return sinceCommit;
    }

    /** A commit of everything written so far started (or the writes since the last one were dropped). */
    void resetSinceCommit() {
        sinceCommit = 0;
    }

    /** Kafka holds these offsets now: a failure rewinds no further back. */
    void committed(Map<TopicPartition, Long> offsets) {
        committed.putAll(offsets);
    }

    /** The partition was assigned at {@code position}: nothing of it is written yet. */
    void assigned(TopicPartition tp, long position) {
        committed.put(tp, position);
    }

    void revoked(TopicPartition tp) {
        written.remove(tp);
        committed.remove(tp);
    }

    /** After a store failure: forgets what was written on {@code tp}; returns where it resumes, or null if unknown. */
    Long rewind(TopicPartition tp) {
        written.remove(tp);
        return committed.get(tp);
    }
}
