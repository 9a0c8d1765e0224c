package dev.logpipe.role.metrics;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongBiFunction;

/**
 * Requests to a remote service counted by endpoint, as one timer per endpoint, {@code <name>_seconds{endpoint}}: its
 * count is the requests, its sum the seconds waited for their answers. Micrometer holds {@code counts} weakly: the
 * caller keeps it alive (an object made per call vanished at the next garbage collection and the timers then reported
 * nothing).
 */
public final class EndpointTimers {
    private EndpointTimers() {}

    public static <T> void register(
            MeterRegistry registry,
            String name,
            String description,
            T counts,
            List<String> endpoints,
            ToLongBiFunction<T, String> requests,
            ToLongBiFunction<T, String> nanos) {
        for (String endpoint : endpoints) {
            FunctionTimer.builder(
                            name,
                            counts,
                            c -> requests.applyAsLong(c, endpoint),
                            c -> nanos.applyAsLong(c, endpoint),
                            TimeUnit.NANOSECONDS)
                    .description(description)
                    .tag("endpoint", endpoint)
                    .register(registry);
        }
    }
}
