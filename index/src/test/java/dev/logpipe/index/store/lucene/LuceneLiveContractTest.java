package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.EngineFixture;
import dev.logpipe.index.testing.StoreContract;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;

/** The store contract on the embedded Lucene engine, read near-real-time in the same JVM (the standalone). */
class LuceneLiveContractTest extends StoreContract {
    @Override
    protected EngineFixture open(Path dir) {
        return new Live(dir);
    }

    static final class Live implements EngineFixture {
        private final Path dir;
        private final LuceneStore store;
        private final LiveShards reader;

        Live(Path dir) {
            this.dir = dir;
            this.store = new LuceneStore(new ShardLayout(dir), StoreSettings.defaults(), InstantSource.system());
            this.reader = new LiveShards(store);
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
            store.refresh();
        }

        @Override
        public EngineFixture restart() throws IOException {
            store.close(); // closes without committing
            return new Live(dir);
        }

        @Override
        public void close() throws IOException {
            store.close();
        }
    }
}
