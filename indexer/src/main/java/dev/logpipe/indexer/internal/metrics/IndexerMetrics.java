package dev.logpipe.indexer.internal.metrics;

import dev.logpipe.index.store.read.EngineRequests;
import dev.logpipe.role.metrics.EndpointTimers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Every metric of the indexer, prefix {@code logpipe_indexer_} (docs/indexer.md#metrics lists them). */
public final class IndexerMetrics {
    private final MeterRegistry registry;
    private final Counter indexed;
    private final Counter outOfRange;
    private final Counter defaultTenant;
    private final AtomicInteger pausedNow = new AtomicInteger();
    private final AtomicInteger refreshBehind = new AtomicInteger();
    private final Counter deadLettersIndexed;
    private final Counter endOffsetsFailed;
    private final Counter refreshFailed;
    private final Timer commit;
    private final Timer refresh;
    private final DistributionSummary freshness;
    private final DistributionSummary commitShards;

    public IndexerMetrics(MeterRegistry registry) {
        this.registry = registry;
        indexed = Counter.builder("logpipe_indexer.records.indexed")
                .description("Records written to the index")
                .register(registry);
        outOfRange = Counter.builder("logpipe_indexer.records.event_time_out_of_range")
                .description("Records routed by observed_time because event_time was out of range")
                .register(registry);
        defaultTenant = Counter.builder("logpipe_indexer.records.default_tenant")
                .description("Records without tenant_id attributed to kafka.default_tenant")
                .register(registry);
        Gauge.builder("logpipe_indexer.refresh.behind", refreshBehind, Number::doubleValue)
                .description("1 while refreshes run at refresh.behind_interval (the indexer is behind)")
                .register(registry);
        Gauge.builder("logpipe_indexer.paused", pausedNow, Number::doubleValue)
                .description("1 while every partition is paused (the index store is behind)")
                .register(registry);
        deadLettersIndexed = Counter.builder("logpipe_indexer.dead_letters.indexed")
                .description("Dead letters written to the tenants' dead-letter shards")
                .register(registry);
        endOffsetsFailed = Counter.builder("logpipe_indexer.end_offsets.failed")
                .description("Log-end offset lookups that timed out (DURABLE not updated)")
                .register(registry);
        refreshFailed = Counter.builder("logpipe_indexer.refresh.failed")
                .description("Refreshes that failed")
                .register(registry);
        commit = Timer.builder("logpipe_indexer.commit")
                .description("Index-then-commit: Lucene commits then Kafka")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        refresh = Timer.builder("logpipe_indexer.refresh")
                .description("Near-real-time refreshes")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        freshness = DistributionSummary.builder("logpipe_indexer.freshness.seconds")
                .description("Kafka timestamp to queryable, sampled records")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        commitShards = DistributionSummary.builder("logpipe_indexer.commit.shards")
                .description("Shards committed per commit")
                .register(registry);
    }

    public void indexed(long n) {
        indexed.increment(n);
    }

    /**
     * Structured field values of a tenant written to the stored record but not indexed, because their shard already
     * indexes as many distinct names as {@code index.max_field_names} allows.
     */
    public void fieldsNotIndexed(String tenant, long n) {
        Counter.builder("logpipe_indexer.fields.not_indexed")
                .tag("tenant", tenant)
                .description(
                        "Field values kept in the stored record but not indexed (index.max_field_names), by tenant")
                .register(registry)
                .increment(n);
    }

    /** The counts of {@link #fieldsNotIndexed} so far, by tenant. */
    public Map<String, Long> fieldsNotIndexedByTenant() {
        Map<String, Long> out = new TreeMap<>();
        registry.find("logpipe_indexer.fields.not_indexed")
                .counters()
                .forEach(c -> out.put(c.getId().getTag("tenant"), (long) c.count()));
        return out;
    }

    /** A store failure: a write or commit that failed and paused partitions (docs/indexer.md#when-the-index-store-fails). */
    public void storeFailed() {
        Counter.builder("logpipe_indexer.store.failures")
                .description("Store failures (a write or commit that failed); each pauses the partitions it hit")
                .register(registry)
                .increment();
    }

    public void outOfRange() {
        outOfRange.increment();
    }

    /** A pause of every partition, by reason ({@code commit_behind}, {@code ram_over_buffer}). */
    public void paused(String reason) {
        Counter.builder("logpipe_indexer.pauses")
                .tag("reason", reason)
                .description("Times consumption was paused because the index store was behind")
                .register(registry)
                .increment();
    }

    public void pausedNow(boolean paused) {
        this.pausedNow.set(paused ? 1 : 0);
    }

    public void defaultTenant() {
        defaultTenant.increment();
    }

    public void deadLettered(String reason) {
        Counter.builder("logpipe_indexer.records.dead_lettered")
                .tag("reason", reason)
                .description("Records sent to the dead-letter topic, by reason")
                .register(registry)
                .increment();
    }

    public void deadLettersIndexed(long n) {
        deadLettersIndexed.increment(n);
    }

    public void deadLettersSkipped(String reason) {
        Counter.builder("logpipe_indexer.dead_letters.skipped")
                .tag("reason", reason)
                .description("Dead-letter-topic messages not indexed (no tenant, not JSON), by reason")
                .register(registry)
                .increment();
    }

    public void committed(int shards, long nanos) {
        commit.record(nanos, TimeUnit.NANOSECONDS);
        commitShards.record(shards);
    }

    /**
     * The requests the store sent to a remote engine (the OpenSearch store's bulks, refreshes, offsets) as one timer per
     * endpoint, {@code logpipe_indexer_engine_requests_seconds{endpoint}}: its count is the requests, its sum the
     * seconds waited for their answers ({@code requests} is held for the indexer's life: a meter holds it weakly).
     */
    public void engineRequests(EngineRequests requests) {
        EndpointTimers.register(
                registry,
                "logpipe_indexer.engine.requests",
                "Requests to the remote engine and the time waited for their answers, by endpoint",
                requests,
                requests.endpoints(),
                EngineRequests::requests,
                EngineRequests::nanos);
    }

    public void refreshed(long nanos) {
        refresh.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void refreshBehind(boolean behind) {
        refreshBehind.set(behind ? 1 : 0);
    }

    public void refreshFailed() {
        refreshFailed.increment();
    }

    public void freshnessMillis(long ms) {
        freshness.record(ms / 1000.0);
    }

    public void endOffsetsFailed() {
        endOffsetsFailed.increment();
    }

    public void shardDeleted(String kind) {
        Counter.builder("logpipe_indexer.retention.shards_deleted")
                .tag("kind", kind)
                .description("Shards deleted by retention")
                .register(registry)
                .increment();
    }

    public void shardHeld() {
        Counter.builder("logpipe_indexer.retention.shards_held")
                .description("Retention checks that kept an expired shard because of a legal hold")
                .register(registry)
                .increment();
    }

    /** A day archived: its records, archive bytes and the source bytes they hold. */
    public void archived(long records, long bytes, long sourceBytes) {
        Counter.builder("logpipe_indexer.archive.days")
                .description("Hot days moved to the archive tier")
                .register(registry)
                .increment();
        Counter.builder("logpipe_indexer.archive.records")
                .description("Records moved to the archive tier")
                .register(registry)
                .increment(records);
        Counter.builder("logpipe_indexer.archive.bytes")
                .description("Bytes of archives written (compressed)")
                .register(registry)
                .increment(bytes);
        Counter.builder("logpipe_indexer.archive.source_bytes")
                .description("Bytes of record sources the archives written hold (uncompressed)")
                .register(registry)
                .increment(sourceBytes);
    }

    public void archiveFailed() {
        Counter.builder("logpipe_indexer.archive.failures")
                .description("Days whose archiving failed (hot shard kept, tried again at the next check)")
                .register(registry)
                .increment();
    }

    public void archivesDeleted(int days) {
        Counter.builder("logpipe_indexer.archive.retention_deleted")
                .description("Archived days deleted by retention")
                .register(registry)
                .increment(days);
    }

    /** A day restored into the hot tier (its archive forgotten), or a restore that failed (archive kept). */
    public void restored(boolean ok) {
        Counter.builder(ok ? "logpipe_indexer.archive.restored" : "logpipe_indexer.archive.restore_failures")
                .description(
                        ok
                                ? "Archived days restored into the hot tier"
                                : "Restores into the hot tier that failed (the archive kept, searched as before)")
                .register(registry)
                .increment();
    }

    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }
}
