package dev.logpipe.indexer.internal.consume;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.record.LogRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * Picks a record's shard: its tenant and the UTC day of its event time, unless that time is more than
 * {@code maxFutureSkew} ahead of its observed time or older than the tenant's retention; then the record is routed
 * (and sorted) by its observed time and marked out of range, so clock skew cannot create shards at will.
 */
final class Router {
    private final Duration maxFutureSkew;
    private final IndexerConfig.Retention retention;
    private final InstantSource clock;

    Router(Duration maxFutureSkew, IndexerConfig.Retention retention, InstantSource clock) {
        this.maxFutureSkew = maxFutureSkew;
        this.retention = retention;
        this.clock = clock;
    }

    /** Where a record goes and under which times it is indexed. */
    record Route(ShardId shard, Instant eventTime, Instant observedTime, boolean outOfRange) {}

    /** @param kafkaTimestamp stands in for a missing observed time (a record that did not pass a collector) */
    Route route(LogRecord r, long kafkaTimestamp) {
        Instant appended = Instant.ofEpochMilli(kafkaTimestamp);
        Instant oldest = clock.instant().minus(Duration.ofDays(retention.days(r.tenantId())));
        Instant observed = r.observedTime() != null ? r.observedTime() : appended;
        boolean outOfRange = false;
        // observed_time is the collector's clock; one that disagrees with the broker's append time is not trusted
        if (observed.isAfter(appended.plus(maxFutureSkew))
                || observed.isBefore(appended.minus(Duration.ofDays(retention.days(r.tenantId()))))) {
            observed = appended;
            outOfRange = true;
        }
        Instant event = r.eventTime() != null ? r.eventTime() : observed;
        outOfRange |= event.isAfter(observed.plus(maxFutureSkew)) || event.isBefore(oldest);
        if (outOfRange) {
            event = observed;
        }
        event.toEpochMilli(); // throws ArithmeticException for a time no index can sort by
        observed.toEpochMilli();
        return new Route(
                ShardId.records(r.tenantId(), LocalDate.ofInstant(event, ZoneOffset.UTC)), event, observed, outOfRange);
    }
}
