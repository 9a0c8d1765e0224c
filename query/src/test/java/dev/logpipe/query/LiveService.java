package dev.logpipe.query;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A query service over the indexer's own store in one JVM (LiveShards, near-real-time), on real HTTP, as the standalone
 * mounts it: what the live-tail tests write into the store is searchable after a refresh.
 */
final class LiveService {
    interface Body {
        void run(LuceneStore store, LiveShards shards, int port, HttpClient http) throws Exception;
    }

    private LiveService() {}

    static void run(Path data, String limits, int threads, Body body) throws Exception {
        Clock clock = Clock.systemUTC();
        QueryConfig config = QueryFixture.config(data, limits);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LiveShards shards;
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock);
                QueryService service = QueryService.create(
                        config,
                        shards = new LiveShards(store),
                        new ConfiguredKeys(config.keys()),
                        IndexerProgress.NONE,
                        clock,
                        registry)) {
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, threads);
            server.start();
            try {
                body.run(store, shards, server.address().getPort(), HttpClient.newHttpClient());
            } finally {
                service.close();
                server.close();
            }
        }
    }
}
