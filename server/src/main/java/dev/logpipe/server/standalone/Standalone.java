package dev.logpipe.server.standalone;

import dev.logpipe.archive.tier.TieredShardSource;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.broker.BrokerConfig;
import dev.logpipe.broker.EmbeddedBroker;
import dev.logpipe.collector.Collector;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.indexer.ArchiveTier;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.http.StatusHandler;
import dev.logpipe.indexer.stage.PartitionStages;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.server.http.AdminHandler;
import dev.logpipe.server.http.StandaloneServer;
import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.KeyStore;
import dev.logpipe.server.keys.LiveKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline in this JVM: the embedded broker, the collector, the indexer (and the query service), on one
 * HTTP port. {@link #close} stops in order: intake (the HTTP port), the demo, then the collector drains what it
 * accepted into Kafka, the indexer commits its shards and then its Kafka offsets, and the broker stops last.
 * Idempotent; the caller closes it (the broker's own shutdown hook is taken off so it cannot stop first).
 */
public final class Standalone implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Standalone.class);

    private final List<AutoCloseable> inOrder; // closed first to last
    private final StandaloneServer http;
    private final FirstStart firstStart;
    private final EmbeddedBroker broker;
    private final LiveKeys keys;
    private final Optional<WarmUp.Result> warmUp;
    private boolean closed;

    private Standalone(
            List<AutoCloseable> inOrder,
            StandaloneServer http,
            FirstStart firstStart,
            EmbeddedBroker broker,
            LiveKeys keys,
            Optional<WarmUp.Result> warmUp) {
        this.inOrder = inOrder;
        this.http = http;
        this.firstStart = firstStart;
        this.broker = broker;
        this.keys = keys;
        this.warmUp = warmUp;
    }

    /**
     * Starts everything; on any failure stops what it started and throws.
     *
     * @param env the process environment ({@code LOGPIPE_API_KEY}, {@code LOGPIPE_ADMIN_KEY} at a first start)
     * @throws ConfigException a section of the configuration is invalid (the message names the key path)
     * @throws IOException     the data directory, the key file or a shard is unusable (named), or a port is taken
     */
    public static Standalone start(StandaloneConfig config, Map<String, String> env, Clock clock) throws Exception {
        long began = System.nanoTime();
        Files.createDirectories(config.dataDir());
        List<AutoCloseable> started = new ArrayList<>();
        try {
            KeyStore store = new KeyStore(config.dataDir(), clock);
            // one limit on failed authentications for the one port: ingest, query, whoami, admin and legal holds count
            // into it (registered once, in the collector's metrics)
            AuthFailures failures = new AuthFailures(config.auth(), System::nanoTime);
            FirstStart first = FirstStart.ensureKeys(store, env);
            LiveKeys keys = new LiveKeys(store).start(Duration.ofSeconds(1));
            started.add(keys);
            EmbeddedBroker broker = EmbeddedBroker.start(
                    new BrokerConfig(config.brokerDir(), config.brokerPort(), config.brokerControllerPort(), Map.of()));
            broker.closeOnlyExplicitly();
            started.add(broker);
            KeyFile k = keys.current();
            CollectorConfig cc =
                    StandaloneConfigLoader.collector(config, broker.bootstrapServers(), collectorTenants(k));
            IndexerConfig ic = StandaloneConfigLoader.indexer(
                    config,
                    broker.bootstrapServers(),
                    k.keys().stream()
                            .filter(KeyFile.StoredKey::admin)
                            .map(KeyFile.StoredKey::sha256)
                            .toList());
            Collector collector = Collector.start(
                    cc,
                    clock,
                    Duration.ofSeconds(60),
                    new ApiKeys(List.of(), keys.collectorKeys(), failures), // its metrics: the collector's
                    Collector.Listen.MOUNTED);
            started.add(collector);
            keys.onChange(() -> collector.updateTenantLimits(collectorTenants(keys.current())));
            Indexer indexer = Indexer.start(ic, clock, failures);
            started.add(indexer);
            StandaloneConfigLoader.Query qc = StandaloneConfigLoader.query(config);
            LiveShards live = new LiveShards(indexer.store());
            ShardSource shards = live;
            TieredShardSource tiered = null;
            if (indexer.archive().isPresent()) { // the archived days, through the indexer's own catalog and store
                ArchiveTier tier = indexer.archive().get();
                tiered = new TieredShardSource(
                        shards,
                        tier.catalog(),
                        tier.objects(),
                        new TieredShardSource.Cache(
                                tier.settings().cacheDir(),
                                tier.settings().cacheDays(),
                                tier.settings().cacheBytes()),
                        clock);
                started.add(tiered);
                shards = tiered;
            }
            QueryMount query = new QueryMount(
                    qc.config(),
                    qc.defaults(),
                    shards,
                    live.keptReads(),
                    keys,
                    () -> Optional.of(progress(indexer.stages().snapshot())),
                    clock,
                    failures);
            started.add(query);
            keys.onChange(query::refresh);
            StatusHandler indexerStatus = indexer.status();
            StandaloneServer http = new StandaloneServer(
                    new InetSocketAddress(config.host(), config.port()),
                    cc.limits().maxConcurrentRequests() + 64,
                    cc.limits(),
                    new StandaloneServer.Routes(
                            collector.handler(),
                            indexer.httpHandler(),
                            indexerStatus::json,
                            query.handler(),
                            new AdminHandler(store, keys, failures, query::rulesAdmin, query.scrapeKeyHashes()),
                            () -> collector.brokerReachable() && indexer.loop().ready(),
                            () -> collector.registry().scrape()
                                    + indexer.registry().scrape()
                                    + query.scrape(),
                            query::recordedSeries,
                            query::failedOutside));
            Optional<WarmUp.Result> warmed = warmUp(config.warmUp(), ic, qc);
            try {
                http.start();
            } catch (IOException e) {
                throw new IOException(
                        "cannot listen on " + config.host() + ":" + config.port() + " (" + e.getMessage()
                                + "); choose another port with --port N",
                        e);
            }
            started.add(http);
            log.info(
                    "standalone ready in {} ms: http://{}:{}/ broker={} data={}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
                    http.address().getHostString(),
                    http.address().getPort(),
                    broker.bootstrapServers(),
                    config.dataDir());
            // intake, drain into Kafka, index commit then Kafka commit, key polling, broker last
            List<AutoCloseable> order = new ArrayList<>(List.of(http, collector, query));
            if (tiered != null) {
                order.add(tiered);
            }
            order.addAll(List.of(indexer, keys, broker));
            return new Standalone(order, http, first, broker, keys, warmed);
        } catch (Exception | Error e) {
            Collections.reverse(started);
            closeAll(started);
            throw e;
        }
    }

    /**
     * Runs {@link WarmUp} on throwaway data before the port opens, so the ready line comes after it; a failed
     * warm-up is logged with its cause and the standalone starts cold (nothing of the user's depends on it).
     */
    private static Optional<WarmUp.Result> warmUp(Duration budget, IndexerConfig ic, StandaloneConfigLoader.Query qc)
            throws InterruptedException {
        if (budget.isZero()) {
            log.info("warm-up off (warm_up: 0s)");
            return Optional.empty();
        }
        long began = System.nanoTime();
        log.info(
                "warming up the ingest, index and search paths on throwaway data in a temp directory (warm_up: {})",
                ConfigNode.format(budget));
        try {
            WarmUp.Result r = WarmUp.run(budget, ic.index().store(), qc.config(), qc.defaults());
            log.info(
                    "warm-up done in {} ms: {} records decoded, indexed and refreshed, {} searches",
                    r.millis(),
                    r.records(),
                    r.searches());
            return Optional.of(r);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "warm-up failed after {} ms, the standalone starts cold: {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
                    e.toString(),
                    e);
            return Optional.empty();
        }
    }

    /** The key file's tenants with their ingest limits (the keys themselves reach the collector through LiveKeys). */
    private static List<CollectorConfig.Tenant> collectorTenants(KeyFile k) {
        List<CollectorConfig.Tenant> tenants = new ArrayList<>();
        for (KeyFile.Tenant t : k.tenants().values()) {
            tenants.add(LiveKeys.collectorTenant(t, List.of()));
        }
        return tenants;
    }

    /**
     * What the query service's status reports of the indexer, in time only (the partitions carry every tenant's
     * records, so their counts are no tenant's to see): while durable records wait to become searchable, the age of
     * the newest searchable one; the newest record's age at each stage, the freshest partition's.
     */
    static IndexerProgress.Snapshot progress(List<PartitionStages> stages) {
        boolean behind = false;
        Double lag = 0.0;
        Double[] ages = new Double[4];
        for (PartitionStages p : stages) {
            if (p.partition().startsWith("logpipe.dead-letter")) {
                continue;
            }
            if (p.durable() > p.queryable()) {
                behind = true;
                lag = p.queryableAge() == null || lag == null ? null : Math.max(lag, p.queryableAge());
            }
            Double[] own = {p.durableAge(), p.readAge(), p.indexedAge(), p.queryableAge()};
            for (int i = 0; i < ages.length; i++) {
                if (own[i] != null) {
                    ages[i] = ages[i] == null ? own[i] : Math.min(ages[i], own[i]);
                }
            }
        }
        Map<String, Double> byStage = new LinkedHashMap<>();
        String[] names = {"durable", "read", "indexed", "queryable"};
        for (int i = 0; i < ages.length; i++) {
            if (ages[i] != null) {
                byStage.put(names[i], ages[i]);
            }
        }
        return new IndexerProgress.Snapshot(behind ? lag : Double.valueOf(0.0), byStage);
    }

    public InetSocketAddress address() {
        return http.address();
    }

    public String baseUrl() {
        return "http://" + http.address().getHostString() + ":" + http.address().getPort();
    }

    /** The keys made at this start (printed once), or null when the data directory already had them. */
    public FirstStart firstStart() {
        return firstStart;
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public LiveKeys keys() {
        return keys;
    }

    /** What the warm-up before ready did; empty when it was off ({@code warm_up: 0s}) or failed (logged). */
    Optional<WarmUp.Result> warmUp() {
        return warmUp;
    }

    /** Adds something to stop first, before the intake (the demo forwarder). */
    public synchronized void stopFirst(AutoCloseable c) {
        inOrder.add(0, c);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long began = System.nanoTime();
        closeAll(inOrder);
        log.info("standalone stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
    }

    private static void closeAll(List<AutoCloseable> inOrder) {
        for (AutoCloseable c : inOrder) {
            try {
                c.close();
            } catch (Exception e) {
                log.error("error while stopping {}", c.getClass().getSimpleName(), e);
            }
        }
    }
}
