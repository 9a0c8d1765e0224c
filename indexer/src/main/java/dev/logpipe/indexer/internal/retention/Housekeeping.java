package dev.logpipe.indexer.internal.retention;

import java.io.IOException;

/**
 * A job the indexer's loop runs on its own thread about once a second while no commit is in flight, so it may close
 * and delete shards no write is touching: retention, and the archive tier's steps.
 */
public interface Housekeeping {
    /** Does what is due now (usually nothing); a failure is logged by the loop and the job is asked again later. */
    void runIfDue() throws IOException;

    /**
     * True while the job wrote records the store has not committed and waits for that commit (a restore into the hot
     * tier): the loop then commits at its next interval even if no Kafka record arrived.
     */
    default boolean needsCommit() {
        return false;
    }

    /** A short name for log lines ("retention", "archive"). */
    String name();
}
