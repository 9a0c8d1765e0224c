package dev.logpipe.indexer;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.opensearch.ClusterDocuments;
import dev.logpipe.index.opensearch.OpenSearchStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.http.ArchivesHandler;
import dev.logpipe.indexer.http.HoldsHandler;
import dev.logpipe.indexer.http.IndexerServer;
import dev.logpipe.indexer.http.StatusHandler;
import dev.logpipe.indexer.internal.consume.IndexLoop;
import dev.logpipe.indexer.internal.consume.Refresher;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.internal.retention.AuditLog;
import dev.logpipe.indexer.internal.retention.Housekeeping;
import dev.logpipe.indexer.internal.retention.LegalHolds;
import dev.logpipe.indexer.internal.retention.Retention;
import dev.logpipe.indexer.stage.SearchLag;
import dev.logpipe.indexer.stage.StageOffsets;
import dev.logpipe.role.CloseAll;
import dev.logpipe.role.RoleLifecycle;
import io.micrometer.core.instrument.binder.jvm.DiskSpaceMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One running indexer: shards verified, store open, loop consuming, refresher refreshing, HTTP serving. *
 * <p>Its private constructor takes the twelve parts start() assembled, each kept for an accessor or for close; they share
 * no value that would group them (issue 30's parameter rule).
 */
public final class Indexer implements RoleLifecycle.Role {
    private static final Logger log = LoggerFactory.getLogger(Indexer.class);

    private final LuceneStore store; // null when the engine is OpenSearch
    private final ShardStore engine;
    private final IndexLoop loop;
    private final Refresher refresher;
    private final IndexerServer server;
    private final AuditLog audit;
    private final StageOffsets stages;
    private final LegalHolds holds;
    private final Retention retention;
    private final PrometheusMeterRegistry registry;
    private final StatusHandler status;
    private final ArchiveTier archive; // null without the archive tier (OpenSearch)
    private boolean closed;

    private Indexer(
            LuceneStore store,
            ShardStore engine,
            IndexLoop loop,
            Refresher refresher,
            IndexerServer server,
            AuditLog audit,
            StageOffsets stages,
            LegalHolds holds,
            Retention retention,
            PrometheusMeterRegistry registry,
            StatusHandler status,
            ArchiveTier archive) {
        this.archive = archive;
        this.store = store;
        this.engine = engine;
        this.status = status;
        this.loop = loop;
        this.refresher = refresher;
        this.server = server;
        this.audit = audit;
        this.stages = stages;
        this.holds = holds;
        this.retention = retention;
        this.registry = registry;
    }

    /**
     * Verifies every shard on disk, then starts consuming and serving. Failed authentications of the legal-hold API
     * are limited by {@code config.auth()} and counted in this indexer's metrics.
     *
     * @throws IOException a shard or state file is corrupt (named in the message), or the data directory is unusable
     */
    public static Indexer start(IndexerConfig config, InstantSource clock) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        return start(
                config,
                clock,
                new AuthFailures(config.auth(), System::nanoTime).register(registry),
                registry,
                UnaryOperator.identity());
    }

    /**
     * As {@link #start(IndexerConfig, InstantSource)}, the consumer loop, the refresher and retention writing through
     * {@code decorate.apply(store)} instead of the store itself: for tests (a store that is slow, fails or pauses at a
     * chosen point) and for embedding. The decorator forwards every call it does not change; {@link #store()} is still
     * the store it wraps, and {@link #close()} closes that one.
     */
    public static Indexer start(IndexerConfig config, InstantSource clock, UnaryOperator<ShardStore> decorate)
            throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        return start(
                config,
                clock,
                new AuthFailures(config.auth(), System::nanoTime).register(registry),
                registry,
                decorate);
    }

    /**
     * As {@link #start(IndexerConfig, InstantSource)}, counting failed authentications of the legal-hold API into
     * {@code failures}, which the caller shares with its other APIs and registers in its metrics itself (the
     * standalone's one port: {@code config.auth()} is then unused).
     */
    public static Indexer start(IndexerConfig config, InstantSource clock, AuthFailures failures) throws Exception {
        return start(
                config,
                clock,
                failures,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                UnaryOperator.identity());
    }

    private static Indexer start(
            IndexerConfig config,
            InstantSource clock,
            AuthFailures failures,
            PrometheusMeterRegistry registry,
            UnaryOperator<ShardStore> decorate)
            throws Exception {
        IndexerMetrics metrics = new IndexerMetrics(registry);
        ShardLayout layout = new ShardLayout(config.dataDir());
        Files.createDirectories(layout.dataDir());
        LuceneStore lucene = null;
        ShardStore engine;
        boolean rebuild = false;
        if (config.opensearch().isPresent()) {
            OpenSearchStore cluster = OpenSearchStore.open(config.opensearch().get());
            metrics.engineRequests(cluster.requests());
            engine = cluster;
        } else {
            lucene = new LuceneStore(layout, config.index().store(), clock);
            rebuild = verify(lucene, layout, config.index().onCorruptShard(), clock);
            engine = lucene;
        }
        LuceneStore store = lucene;
        IntSupplier openShards = lucene == null ? () -> 0 : lucene::openShards;
        ShardStore writes = decorate.apply(engine);
        AuditLog audit = new AuditLog(config.auditLog(), clock);
        ArchiveTier archive = null;
        try {
            // with OpenSearch every indexer shares the cluster's holds; with Lucene they are this indexer's own
            LegalHolds holds = config.opensearch().isPresent()
                    ? LegalHolds.inCluster(
                            ClusterDocuments.open(config.opensearch().get(), "legal-holds"),
                            layout.dataDir().resolve("legal-holds.json"),
                            audit,
                            clock)
                    : LegalHolds.inFile(layout.dataDir().resolve("legal-holds.json"), audit, clock);
            StageOffsets stages = new StageOffsets(clock);
            Retention retention = new Retention(writes, config.retention(), holds, audit, metrics, clock);
            List<Housekeeping> housekeeping = new ArrayList<>(List.of(retention));
            if (lucene != null && config.archive().isPresent()) {
                archive = ArchiveTier.open(
                        config.archive().get(),
                        config.retention(),
                        new ArchiveTier.Host(writes, new LiveShards(lucene), holds, audit, metrics),
                        clock);
                housekeeping.add(archive.housekeeping());
            }
            IndexLoop loop = new IndexLoop(config, writes, stages, metrics, housekeeping, clock, rebuild);
            Refresher refresher = new Refresher(
                    writes, stages, metrics, config.refreshInterval(), config.refreshBehindInterval(), clock);
            StatusHandler status =
                    new StatusHandler(stages, openShards, loop.failures(), metrics::fieldsNotIndexedByTenant);
            IndexerServer server = new IndexerServer(
                    config.listen(),
                    status,
                    new HoldsHandler(holds, config.admin().apiKeySha256(), failures),
                    new ArchivesHandler(
                            Optional.ofNullable(archive), config.admin().apiKeySha256(), failures),
                    registry,
                    loop::ready);
            metrics.gauge("logpipe_indexer.shards.open", "Shards open now", openShards::getAsInt);
            String deadLetters = config.kafka().deadLetterTopic();
            metrics.gauge(
                    "logpipe_indexer.search.behind.records",
                    "Records durable in Kafka and not searchable yet (QUERYABLE behind DURABLE), this indexer's "
                            + "record partitions",
                    () -> SearchLag.of(stages.snapshot(), deadLetters).records());
            metrics.gauge(
                    "logpipe_indexer.search.behind.seconds",
                    "While records wait to become searchable, the age of the newest searchable one (0 when none "
                            + "wait)",
                    () -> SearchLag.of(stages.snapshot(), deadLetters).seconds());
            new DiskSpaceMetrics(layout.dataDir().toFile()).bindTo(registry);
            metrics.gauge(
                    "logpipe_indexer.partitions.write_failed",
                    "Partitions paused after a store failure, waiting out their backoff or retrying",
                    () -> loop.failures().size());
            server.start();
            loop.start();
            refresher.start();
            log.info(
                    "indexer ready listen={}:{} data={} topic={} dead_letter_topic={} group={} bootstrap={}",
                    server.address().getHostString(),
                    server.address().getPort(),
                    layout.dataDir(),
                    config.kafka().topic(),
                    config.kafka().deadLetterTopic(),
                    config.kafka().groupId(),
                    config.kafka().bootstrapServers());
            return new Indexer(
                    store, engine, loop, refresher, server, audit, stages, holds, retention, registry, status, archive);
        } catch (Exception | Error e) {
            if (archive != null) {
                archive.close();
            }
            audit.close();
            engine.close();
            throw e;
        }
    }

    /** Checks every shard's last commit and metadata; true when some were moved aside (rebuild from Kafka). */
    private static boolean verify(
            LuceneStore store, ShardLayout layout, IndexerConfig.OnCorruptShard policy, InstantSource clock)
            throws IOException {
        List<ShardId> corrupt = new ArrayList<>();
        for (ShardKind kind : ShardKind.values()) {
            for (ShardId id : layout.list(kind)) {
                try {
                    store.verify(id);
                } catch (ShardMetadata.NewerFormatException e) {
                    throw e; // not damage: moving it aside would throw away a newer version's shard
                } catch (IOException e) {
                    if (policy == IndexerConfig.OnCorruptShard.FAIL) {
                        throw new IOException(
                                e.getMessage() + " (start with index.on_corrupt_shard: move_aside to "
                                        + "move it aside and rebuild it from Kafka)",
                                e);
                    }
                    log.warn("{}; moving it aside", e.getMessage());
                    corrupt.add(id);
                }
            }
        }
        for (ShardId id : corrupt) {
            Path aside = layout.dataDir()
                    .resolve("corrupt")
                    .resolve(id.kind().directory())
                    .resolve(layout.shardDir(id).getParent().getFileName().toString())
                    .resolve(id.day() + "-" + clock.millis());
            Files.createDirectories(aside.getParent());
            Files.move(layout.shardDir(id), aside);
            log.warn("shard {} moved to {}; it is rebuilt from what the topics still hold", id, aside);
        }
        return !corrupt.isEmpty();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /** The status, health, metrics and legal-hold routes as a Jetty handler, to serve them on another port too. */
    public Handler httpHandler() {
        return server.handler();
    }

    /** The status API's answer ({@code GET /api/v1/status}), to serve it on another port too. */
    public StatusHandler status() {
        return status;
    }

    /**
     * The embedded Lucene store (the standalone's query side reads it live).
     *
     * @throws IllegalStateException the indexer writes to OpenSearch ({@code store: opensearch})
     */
    public LuceneStore store() {
        if (store == null) {
            throw new IllegalStateException(
                    "this indexer writes to OpenSearch (store: opensearch), not to Lucene shards");
        }
        return store;
    }

    public StageOffsets stages() {
        return stages;
    }

    public Retention retention() {
        return retention;
    }

    /** The archive tier this indexer feeds; empty with {@code store: opensearch}. */
    public Optional<ArchiveTier> archive() {
        return Optional.ofNullable(archive);
    }

    public LegalHolds holds() {
        return holds;
    }

    public IndexLoop loop() {
        return loop;
    }

    /** Non-null once the indexing loop stopped after an error: {@code logpipe indexer} then exits 4. */
    @Override
    public String failure() {
        Throwable f = loop.failure();
        return loop.isAlive() || f == null ? null : f.toString();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Stops HTTP, stops the loop (which commits), stops refreshing, closes the store. Idempotent. */
    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            CloseAll.inOrder(server, loop, archive, refresher, engine, audit);
        } finally {
            log.info("indexer stopped");
        }
    }
}
