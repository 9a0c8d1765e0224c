package dev.logpipe.indexer.internal.retention;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import java.io.IOException;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes whole day shards past their tenant's {@code retention_days} (a shard of day D expires once D is more than
 * that many days before today, UTC), unless a legal hold covers the day. Every deletion is logged, counted and
 * audited before the next; a held shard is counted (and logged once per check). Runs on the indexer's loop thread,
 * so no shard is deleted while being written.
 */
public final class Retention implements Housekeeping {
    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    private final ShardStore store;
    private final IndexerConfig.Retention config;
    private final LegalHolds holds;
    private final AuditLog audit;
    private final IndexerMetrics metrics;
    private final InstantSource clock;
    private long lastRunMillis = Long.MIN_VALUE;

    public Retention(
            ShardStore store,
            IndexerConfig.Retention config,
            LegalHolds holds,
            AuditLog audit,
            IndexerMetrics metrics,
            InstantSource clock) {
        this.store = store;
        this.config = config;
        this.holds = holds;
        this.audit = audit;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Runs a check when {@code check_interval} has passed since the last one. */
    @Override
    public void runIfDue() throws IOException {
        long now = clock.millis();
        if (lastRunMillis != Long.MIN_VALUE
                && now - lastRunMillis < config.checkInterval().toMillis()) {
            return;
        }
        lastRunMillis = now;
        run();
    }

    @Override
    public String name() {
        return "retention";
    }

    /** One check over every shard; returns how many were deleted. */
    public int run() throws IOException {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        int deleted = 0;
        for (ShardKind kind : ShardKind.values()) {
            for (ShardId shard : store.shards(kind)) {
                int days = config.days(shard.tenant());
                if (!shard.day().isBefore(today.minusDays(days))) {
                    continue;
                }
                Optional<LegalHold> hold = holds.holding(shard.tenant(), shard.day());
                if (hold.isPresent()) {
                    metrics.shardHeld();
                    log.info(
                            "retention keeps expired shard {} (retention_days={}): legal hold {}",
                            shard,
                            days,
                            hold.get().id());
                    continue;
                }
                // Audited first: a deletion is never without its line (a failed delete is retried and audited again).
                audit.append("shard_deleted", o -> {
                    o.put("kind", shard.kind().name());
                    o.put("tenant_id", shard.tenant());
                    o.put("day", shard.day().toString());
                    o.put("retention_days", days);
                    o.put("reason", "retention");
                });
                if (store.delete(shard)) {
                    deleted++;
                    metrics.shardDeleted(kind.name());
                    log.info("retention deleted shard {} (retention_days={})", shard, days);
                }
            }
        }
        return deleted;
    }
}
