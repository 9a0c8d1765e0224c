package dev.logpipe.indexer.e2e;

import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.ForwardingShardStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;

/** A store whose every commit takes {@link #DELAY_MS} more: an engine that falls behind the loop's writes. */
final class SlowEngineCommits extends ForwardingShardStore {
    static final long DELAY_MS = 2000;

    SlowEngineCommits(ShardStore delegate) {
        super(delegate);
    }

    @Override
    public int commit(Map<String, Long> offsets) throws IOException {
        try {
            // sleep: slow seam: an engine whose commits take this long
            Thread.sleep(DELAY_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted before a slow commit");
        }
        return super.commit(offsets);
    }
}
