package dev.logpipe.index.testing;

import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;

/**
 * One storage engine as {@link StoreContract} drives it: its write side, its read side as the query service sees it,
 * and the two moments the contract needs to cause. Each engine's test supplies one.
 */
public interface EngineFixture extends AutoCloseable {
    /** The write side, as the indexer's loop takes it. */
    ShardStore store();

    /** The read side, as the query service takes it. */
    ShardSource reader();

    /** Makes every write so far visible to {@link #reader} (a refresh; a commit and a reopen for a reader of commits). */
    void makeVisible() throws IOException;

    /**
     * Drops the engine without committing (what a kill -9 leaves) and opens it again on the same data: writes since the
     * last commit may be gone, committed ones and their offsets stay.
     */
    EngineFixture restart() throws Exception;
}
