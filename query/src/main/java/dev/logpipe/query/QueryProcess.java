package dev.logpipe.query;

import dev.logpipe.index.opensearch.OpenSearchShards;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.role.CloseAll;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The separate query process behind its own HTTP port: the committed shards of the data directory, read-only, or with
 * {@code store: opensearch} the indices of an OpenSearch cluster (any number of query processes, stateless).
 */
public final class QueryProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueryProcess.class);
    private final ShardSource shards;
    private final Closeable closeShards;
    private final QueryService service;
    private final QueryServer server;
    private boolean closed;

    private QueryProcess(ShardSource shards, Closeable closeShards, QueryService service, QueryServer server) {
        this.shards = shards;
        this.closeShards = closeShards;
        this.service = service;
        this.server = server;
    }

    /** @throws IOException the cursor secret or the audit log is unusable (named in the message) */
    public static QueryProcess start(QueryConfig config, InstantSource clock) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ShardLayout layout = new ShardLayout(config.dataDir());
        CommittedShards committed = null;
        ShardSource shards;
        if (config.opensearch().isPresent()) {
            OpenSearchShards cluster = OpenSearchShards.open(config.opensearch().get());
            EngineRequestMeters.register(registry, cluster.requests());
            shards = cluster;
        } else {
            committed = new CommittedShards(layout, config.reopenInterval());
            shards = committed;
            KeptReadGauges.register(registry, committed.keptReads());
        }
        Closeable closeShards = committed == null ? () -> {} : committed;
        QueryService service = null;
        try {
            if (config.archive().isPresent()) {
                ArchivedDays archived = ArchivedDays.open(config.archive().get(), shards, clock, closeShards);
                shards = archived.source();
                closeShards = archived;
            }
            service = QueryService.create(
                    config, shards, new ConfiguredKeys(config.keys()), IndexerProgress.NONE, clock, registry);
            int threads = config.limits().maxTails()
                    + config.tenants().stream()
                            .mapToInt(QueryConfig.Tenant::maxConcurrentQueries)
                            .sum()
                    + 16;
            QueryServer server =
                    new QueryServer(config.listen(), service, registry, () -> true, Math.min(threads, 1024));
            if (committed != null) {
                committed.start();
            }
            server.start();
            service.startRules();
            log.info(
                    "query ready listen={}:{} {} tenants={}",
                    server.address().getHostString(),
                    server.address().getPort(),
                    config.opensearch()
                            .map(o -> "opensearch=" + o.hosts() + " prefix=" + o.indexPrefix())
                            .orElse("data=" + layout.dataDir()
                                    + config.archive()
                                            .map(a -> " archive=" + a.describe())
                                            .orElse("")),
                    config.tenants().size());
            return new QueryProcess(shards, closeShards, service, server);
        } catch (Exception | Error e) {
            if (service != null) {
                service.close();
            }
            closeShards.close();
            throw e;
        }
    }

    public InetSocketAddress address() {
        return server.address();
    }

    public QueryService service() {
        return service;
    }

    /** Stops HTTP, ends tails, closes the shards. Idempotent. */
    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            CloseAll.inOrder(service, server, closeShards);
        } finally {
            log.info("query stopped");
        }
    }
}
