package dev.logpipe.collector.internal.metrics;

import dev.logpipe.collector.internal.admission.InFlightBytes;
import dev.logpipe.collector.internal.ingest.IngestResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Every metric of the collector, prefix {@code logpipe_collector_} (docs/collector.md#metrics lists them). */
public final class CollectorMetrics {
    private final MeterRegistry registry;
    private final Timer publishLatency;
    private final Counter accepted;

    public CollectorMetrics(MeterRegistry registry, InFlightBytes inFlight) {
        this.registry = registry;
        this.publishLatency = Timer.builder("logpipe_collector.publish")
                .description("Time from the first send to the broker committing every message of a request")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        this.accepted = Counter.builder("logpipe_collector.records.accepted")
                .description("Records committed to the records topic")
                .register(registry);
        Gauge.builder("logpipe_collector.in_flight.bytes", inFlight, InFlightBytes::used)
                .baseUnit("bytes")
                .description("Request bytes being processed now (bounded by limits.in_flight_bytes)")
                .register(registry);
    }

    public void request(int status) {
        Counter.builder("logpipe_collector.requests")
                .tag("status", Integer.toString(status))
                .description("Ingest requests answered, by HTTP status")
                .register(registry)
                .increment();
    }

    public void rateLimited(String tenant, String limit) {
        Counter.builder("logpipe_collector.rate_limited")
                .tag("tenant", tenant)
                .tag("limit", limit)
                .description("Requests refused with 429 by a tenant's rate limit")
                .register(registry)
                .increment();
    }

    /** A request refused because a cap on requests in progress was full ({@code tenant}, {@code address}, {@code global}). */
    public void refused(String cap) {
        Counter.builder("logpipe_collector.requests.refused")
                .tag("cap", cap)
                .description("Requests refused at once because a cap on requests in progress was full")
                .register(registry)
                .increment();
    }

    public void published(IngestResult result, long nanos) {
        publishLatency.record(nanos, TimeUnit.NANOSECONDS);
        accepted.increment(result.accepted());
        result.deadLetteredByReason()
                .forEach((reason, n) -> Counter.builder("logpipe_collector.records.dead_lettered")
                        .tag("reason", reason.name())
                        .description("Records sent to the dead-letter topic, by reason")
                        .register(registry)
                        .increment(n));
        for (Map.Entry<String, Integer> e : result.redactions().entrySet()) {
            Counter.builder("logpipe_collector.redactions")
                    .tag("rule", e.getKey())
                    .description("Values redacted (or withheld), by rule")
                    .register(registry)
                    .increment(e.getValue());
        }
    }

    /** A request of an ingest route ({@code native}, {@code bulk}, {@code otlp}, {@code loki}) answered. */
    public void route(String route, int status) {
        Counter.builder("logpipe_collector.route.requests")
                .tag("route", route)
                .tag("status", Integer.toString(status))
                .description("Ingest requests answered, by route and HTTP status")
                .register(registry)
                .increment();
    }

    /** What a route's request became: records accepted and dead-lettered. */
    public void routeRecords(String route, IngestResult result) {
        routeRecords(route, "accepted", result.accepted());
        routeRecords(route, "dead_lettered", result.deadLettered());
    }

    /** {@code n} records of a route ({@code syslog} too) with an outcome ({@code accepted}, {@code dead_lettered}). */
    public void routeRecords(String route, String outcome, long n) {
        Counter.builder("logpipe_collector.route.records")
                .tag("route", route)
                .tag("outcome", outcome)
                .description("Records by ingest route and outcome")
                .register(registry)
                .increment(n);
    }

    /** Syslog messages (or connections, {@code n} 0) dropped: no acknowledgement could tell the sender. */
    public void syslogDropped(String reason, long n) {
        Counter.builder("logpipe_collector.syslog.dropped")
                .tag("reason", reason)
                .description("Syslog messages dropped (connection_cap and unknown_certificate count connections)")
                .register(registry)
                .increment(n == 0 ? 1 : n);
    }
}
