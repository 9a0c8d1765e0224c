package dev.logpipe.collector.admission;

import dev.logpipe.collector.config.CollectorConfig;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-tenant rate limits in records/s and bytes/s, each a token bucket holding {@code burst} worth of its rate.
 * Admission happens before the body is read: the bytes are charged from the request's length, and a request is
 * admitted only while the records bucket is not in debt. The records are charged once they are counted, and may
 * put the bucket in debt, which refuses the next requests until it has refilled.
 */
public final class TenantLimits {
    /** Whether a request may go on, and if not how long the client should wait. */
    public record Decision(boolean admitted, Duration retryAfter, String limit, long charged) {
        static final Decision OK = new Decision(true, Duration.ZERO, null, 0);

        Decision(boolean admitted, Duration retryAfter, String limit) {
            this(admitted, retryAfter, limit, 0);
        }
    }

    private record Buckets(Bucket records, long recordsPerSecond, Bucket bytes, long bytesCapacity,
                           long bytesPerSecond) {
    }

    private final Map<String, Buckets> byTenant = new HashMap<>();

    public TenantLimits(Iterable<CollectorConfig.Tenant> tenants) {
        for (CollectorConfig.Tenant t : tenants) {
            byTenant.put(t.id(), new Buckets(bucket(t.recordsPerSecond(), t.burst()), t.recordsPerSecond(),
                    bucket(t.bytesPerSecond(), t.burst()), capacity(t.bytesPerSecond(), t.burst()), t.bytesPerSecond()));
        }
    }

    private static Bucket bucket(long perSecond, Duration burst) {
        if (perSecond <= 0) {
            return null;
        }
        long capacity = capacity(perSecond, burst);
        return Bucket.builder().addLimit(Bandwidth.builder().capacity(capacity)
                .refillGreedy(perSecond, Duration.ofSeconds(1)).build()).build();
    }

    private static long capacity(long perSecond, Duration burst) {
        return Math.max(1, perSecond * burst.toMillis() / 1000);
    }

    /**
     * Before the body is read: charges {@code bodyBytes} (at most the burst) and checks neither bucket is in debt.
     * Returns how many bytes it charged in {@link Decision#charged}.
     */
    public Decision admit(String tenant, long bodyBytes) {
        Buckets b = byTenant.get(tenant);
        if (b == null) {
            return Decision.OK;
        }
        if (b.bytes() != null && b.bytes().getAvailableTokens() <= 0) {
            long missing = 1 - b.bytes().getAvailableTokens();
            return new Decision(false, Duration.ofMillis(Math.max(1, missing * 1000 / b.bytesPerSecond() + 1)),
                    "bytes_per_second");
        }
        if (b.records() != null && b.records().getAvailableTokens() <= 0) {
            long missing = 1 - b.records().getAvailableTokens();
            // The debt is paid back at the refill rate (it may exceed the capacity, so no probe can tell).
            long millis = Math.max(1, (missing * 1000 + b.recordsPerSecond() - 1) / b.recordsPerSecond());
            return new Decision(false, Duration.ofMillis(millis), "records_per_second");
        }
        if (b.bytes() != null && bodyBytes > 0) {
            // A body larger than the whole burst is charged the burst: it is admitted when the bucket is full.
            long charge = Math.min(bodyBytes, b.bytesCapacity());
            ConsumptionProbe p = b.bytes().tryConsumeAndReturnRemaining(charge);
            if (!p.isConsumed()) {
                return new Decision(false, Duration.ofNanos(p.getNanosToWaitForRefill()), "bytes_per_second");
            }
            return new Decision(true, Duration.ZERO, null, charge);
        }
        return Decision.OK;
    }

    /**
     * After the body is read and its records counted: charges them, and the wire bytes not yet charged at admission
     * (a body without Content-Length, or one larger than the burst). Either bucket may go into debt, which refuses
     * the next requests until it has refilled.
     */
    public void charge(String tenant, long records, long wireBytes, long bytesChargedAtAdmission) {
        Buckets b = byTenant.get(tenant);
        if (b == null) {
            return;
        }
        if (b.records() != null && records > 0) {
            b.records().consumeIgnoringRateLimits(records);
        }
        if (b.bytes() != null && wireBytes > bytesChargedAtAdmission) {
            b.bytes().consumeIgnoringRateLimits(wireBytes - bytesChargedAtAdmission);
        }
    }
}
