package dev.logpipe.index.opensearch;

import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.index.testing.EngineFixture;
import dev.logpipe.index.testing.StoreContract;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on the OpenSearch engine, on a real OpenSearch 2.19 node: each test its own index prefix. */
@Integration
@ExtendWith(OpenSearchExtension.class)
class OpenSearchContractTest extends StoreContract {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private OpenSearchExtension.Node node;

    @BeforeEach
    void node(OpenSearchExtension.Node node) {
        this.node = node;
    }

    @Override
    protected EngineFixture open(Path dir) throws IOException {
        OpenSearchSettings local = OpenSearchSettings.local(URI.create(node.base()));
        return new Engine(new OpenSearchSettings(
                local.hosts(),
                local.credential(),
                Optional.empty(),
                "contract" + PREFIXES.incrementAndGet(),
                1,
                0,
                Duration.ofSeconds(30), // visible only after the refresh the contract asks for
                local.bulkBytes(),
                local.requestTimeout(),
                OpenSearchSettings.DEFAULT_BULK_CONCURRENCY));
    }

    static final class Engine implements EngineFixture {
        private final OpenSearchSettings settings;
        private final OpenSearchStore store;
        private final OpenSearchShards reader;

        Engine(OpenSearchSettings settings) throws IOException {
            this.settings = settings;
            this.store = OpenSearchStore.open(settings);
            this.reader = OpenSearchShards.open(settings, Duration.ZERO, System::nanoTime); // every list fresh
        }

        @Override
        public ShardStore store() {
            return store;
        }

        @Override
        public ShardSource reader() {
            return reader;
        }

        /** Every index of the prefix, also those an earlier store wrote (a refresh asks only for its own). */
        @Override
        public void makeVisible() throws IOException {
            store.refresh();
            OpenSearchClient.Response r = new OpenSearchClient(settings)
                    .send("POST", "/" + settings.indexPrefix() + "-*/_refresh", null, null);
            OpenSearchStore.expect(r, "refreshing " + settings.indexPrefix() + "-*");
        }

        @Override
        public EngineFixture restart() throws IOException {
            return new Engine(settings);
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
