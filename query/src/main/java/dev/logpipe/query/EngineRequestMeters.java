package dev.logpipe.query;

import dev.logpipe.index.store.read.EngineRequests;
import dev.logpipe.role.metrics.EndpointTimers;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The requests a query service sent to a remote engine (the OpenSearch store) as one timer per endpoint,
 * {@code logpipe_query_engine_requests_seconds{endpoint}} (docs/query.md, the metrics): its count is the requests, its
 * sum the seconds waited for their answers. Divided by the queries answered, they say how many round trips a query
 * makes and how much of its time is the cluster's.
 */
public final class EngineRequestMeters {
    private EngineRequestMeters() {}

    public static void register(MeterRegistry registry, EngineRequests requests) {
        EndpointTimers.register(
                registry,
                "logpipe_query.engine.requests",
                "Requests to the remote engine and the time waited for their answers, by endpoint",
                requests,
                requests.endpoints(),
                EngineRequests::requests,
                EngineRequests::nanos);
    }
}
