package dev.logpipe.query.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/** The query service's meters (docs/query.md#metrics). */
public final class QueryMetrics {
    private final MeterRegistry registry;

    public QueryMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** One answered or refused request. */
    public void request(String endpoint, int status, long nanos) {
        Timer.builder("logpipe_query.request.seconds")
                .description("Query API latency by endpoint and status")
                .tags("endpoint", endpoint, "status", Integer.toString(status))
                .publishPercentiles(0.5, 0.99)
                .register(registry)
                .record(Duration.ofNanos(nanos));
    }

    /** The shards of one planned query by what became of them: searched, pruned, skipped, failed. */
    public void shards(String endpoint, int searched, int pruned, int skipped, int failed) {
        summary("searched", endpoint).record(searched);
        summary("pruned", endpoint).record(pruned);
        summary("skipped", endpoint).record(skipped);
        summary("failed", endpoint).record(failed);
    }

    private DistributionSummary summary(String state, String endpoint) {
        return DistributionSummary.builder("logpipe_query.shards")
                .description("Shards per query by state")
                .tags("state", state, "endpoint", endpoint)
                .register(registry);
    }

    public void partial(String reason) {
        Counter.builder("logpipe_query.partial")
                .description("Partial answers by reason")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    /** An answer that holds fewer records than were found ({@code max_answer_bytes} or {@code timeout}). */
    public void cut(String endpoint, String reason) {
        Counter.builder("logpipe_query.answers.cut")
                .description("Answers cut short of the records found, by endpoint and reason")
                .tags("endpoint", endpoint, "reason", reason)
                .register(registry)
                .increment();
    }

    /** A live tail that skipped records (it sends a {@code skipped} event with how many). */
    public void tailSkipped(long records) {
        Counter.builder("logpipe_query.tail.skipped")
                .description("Records a live tail could not send and reported as skipped")
                .register(registry)
                .increment(records);
    }

    public void refused(String reason) {
        Counter.builder("logpipe_query.refused")
                .description("Refused requests by reason")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }
}
