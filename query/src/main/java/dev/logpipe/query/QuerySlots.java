package dev.logpipe.query;

import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.admission.FairGate;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.http.Refusal;
import java.time.Duration;

/**
 * Admission of a query to one of the {@code limits.max_running_queries} places to run, tenants served in turn and each
 * running at most {@code limits.tenant_running_queries} (more queries at once than the machine has cores for would
 * only share them and finish past their deadlines; one tenant's flood must not hold every place). Thread-safe.
 */
final class QuerySlots {
    private final FairGate gate;
    private final Duration queryTimeout;

    QuerySlots(QueryConfig.Limits limits) {
        this.gate = new FairGate(limits.maxRunningQueries(), limits.tenantRunningQueries());
        this.queryTimeout = limits.queryTimeout();
    }

    /**
     * Waits, within the deadline, for a place: a 429 ({@code tenant_concurrency}) past the tenant's cap, a timeout
     * refusal once the deadline passed or the thread was interrupted.
     */
    FairGate.Permit admit(QueryConfig.Tenant policy, long deadline) {
        try {
            return gate.enter(policy.id(), policy.maxConcurrentQueries(), deadline);
        } catch (FairGate.NotAdmitted e) {
            if (e.refusal() == FairGate.Refusal.TENANT_CAP) {
                throw new Refusal(429, "tenant_concurrency", e.getMessage());
            }
            throw Bounds.timedOut(queryTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Bounds.timedOut(queryTimeout);
        }
    }
}
