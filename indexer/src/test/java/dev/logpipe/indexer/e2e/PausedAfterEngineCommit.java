package dev.logpipe.indexer.e2e;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.ForwardingShardStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store whose every commit, once done, logs {@link #LINE} and waits {@link #PAUSE_MS}: the indexer's Kafka commit
 * comes only after it returns, so a kill during the pause lands between the engine commit and the Kafka commit.
 */
final class PausedAfterEngineCommit extends ForwardingShardStore {
    static final String LINE = "index committed, committing offsets";
    static final long PAUSE_MS = 300;
    private static final Logger log = LoggerFactory.getLogger(PausedAfterEngineCommit.class);

    PausedAfterEngineCommit(ShardStore delegate) {
        super(delegate);
    }

    @Override
    public int commit(Map<String, Long> offsets) throws IOException {
        int shards = super.commit(offsets);
        log.info(LINE);
        try {
            // sleep: slow seam: the window between the engine commit and the Kafka commit, where the test kills
            Thread.sleep(PAUSE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted after the engine commit");
        }
        return shards;
    }
}
