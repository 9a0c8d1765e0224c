package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.EngineFixture;
import dev.logpipe.index.testing.StoreContract;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;

/**
 * The store contract on the embedded Lucene engine, read from its commits by a reader without the write lock (a
 * separate {@code logpipe query}): what a commit made durable is what it shows.
 */
class LuceneCommittedContractTest extends StoreContract {
    @Override
    protected EngineFixture open(Path dir) {
        return new Committed(dir);
    }

    static final class Committed implements EngineFixture {
        private final Path dir;
        private final LuceneStore store;
        private final CommittedShards reader;

        Committed(Path dir) {
            this.dir = dir;
            ShardLayout layout = new ShardLayout(dir);
            this.store = new LuceneStore(layout, StoreSettings.defaults(), InstantSource.system());
            this.reader = new CommittedShards(layout, Duration.ofHours(1)); // reopened by makeVisible only
        }

        @Override
        public ShardStore store() {
            return store;
        }

        @Override
        public ShardSource reader() {
            return reader;
        }

        @Override
        public void makeVisible() throws IOException {
            store.commit(Map.of());
            reader.reopenOnce();
        }

        @Override
        public EngineFixture restart() throws IOException {
            store.close(); // closes without committing
            reader.close();
            return new Committed(dir);
        }

        @Override
        public void close() throws IOException {
            try (reader) {
                store.close();
            }
        }
    }
}
