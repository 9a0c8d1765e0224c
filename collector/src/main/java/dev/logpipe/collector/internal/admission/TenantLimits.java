package dev.logpipe.collector.internal.admission;

import dev.logpipe.collector.config.CollectorConfig;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Per-tenant rate limits in records/s and bytes/s, each a token bucket holding {@code burst} worth of its rate.
 * A request is admitted only while neither bucket is empty; it then takes tokens <em>as it decodes</em> (records one
 * by one, wire bytes as they are read) through its {@link Charge}. When a bucket runs dry mid-request, one request
 * per tenant at a time may finish in debt (so a single batch larger than the burst still gets through and the
 * client is not stuck retrying it); every other request stops there and answers 429 with what it took. Parallel
 * requests therefore exceed the bucket by at most one request's worth, and Retry-After is the time the bucket
 * really needs to refill, capped at {@code maxRetryAfter}.
 */
public final class TenantLimits {
    /** Refused before the body is read: which limit, and when a token is back (already capped). */
    public record Refusal(String limit, Duration retryAfter) {}

    private volatile Map<String, Buckets> byTenant = Map.of();
    private final Duration maxRetryAfter;

    public TenantLimits(Iterable<CollectorConfig.Tenant> tenants, Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
        update(tenants);
    }

    /**
     * From now on, these tenants' limits (a running {@code logpipe standalone} calls it when its key file changes). A
     * tenant whose rates and burst are unchanged keeps its buckets and what it has drawn from them; a changed or new
     * one starts with full buckets at its new rates; a tenant not listed is no longer limited. Requests already
     * admitted finish on the buckets they were admitted with. Thread-safe; readers see the old limits or the new.
     */
    public synchronized void update(Iterable<CollectorConfig.Tenant> tenants) {
        Map<String, Buckets> next = new HashMap<>();
        for (CollectorConfig.Tenant t : tenants) {
            Spec spec = new Spec(t.recordsPerSecond(), t.bytesPerSecond(), t.burst());
            Buckets kept = byTenant.get(t.id());
            next.put(
                    t.id(),
                    kept != null && kept.spec.equals(spec)
                            ? kept
                            : new Buckets(
                                    spec,
                                    Limit.of("records_per_second", spec.recordsPerSecond, spec.burst),
                                    Limit.of("bytes_per_second", spec.bytesPerSecond, spec.burst)));
        }
        byTenant = Map.copyOf(next);
    }

    private record Spec(long recordsPerSecond, long bytesPerSecond, Duration burst) {}

    /** Null when the tenant may send now; otherwise why not. Takes nothing. */
    public Refusal admit(String tenant) {
        Buckets b = byTenant.get(tenant);
        if (b == null) {
            return null;
        }
        for (Limit l : b.both()) {
            if (l != null && l.bucket.getAvailableTokens() <= 0) {
                return new Refusal(l.name, retryAfter(l));
            }
        }
        return null;
    }

    /** A charge for one admitted request; {@link Charge#close} returns what it took but did not use. */
    public Charge open(String tenant) {
        Buckets b = byTenant.get(tenant);
        return b == null ? Charge.UNLIMITED : new Charge(b);
    }

    /** How long until {@code l} has a token again, at least 1 ms, at most {@code max_retry_after}. */
    private Duration retryAfter(Limit l) {
        long missing = 1 - l.bucket.getAvailableTokens();
        long millis = Math.max(1, (missing * 1000 + l.perSecond - 1) / l.perSecond);
        Duration d = Duration.ofMillis(millis);
        return d.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : d;
    }

    private static final class Limit {
        final String name;
        final long perSecond;
        final Bucket bucket;

        private Limit(String name, long perSecond, Bucket bucket) {
            this.name = name;
            this.perSecond = perSecond;
            this.bucket = bucket;
        }

        static Limit of(String name, long perSecond, Duration burst) {
            if (perSecond <= 0) {
                return null;
            }
            long capacity = Math.max(1, Math.multiplyExact(perSecond, burst.toMillis()) / 1000);
            return new Limit(
                    name,
                    perSecond,
                    Bucket.builder()
                            .addLimit(Bandwidth.builder()
                                    .capacity(capacity)
                                    .refillGreedy(perSecond, Duration.ofSeconds(1))
                                    .build())
                            .build());
        }
    }

    private record Buckets(Spec spec, Limit records, Limit bytes, AtomicBoolean debtorActive) {
        Buckets(Spec spec, Limit records, Limit bytes) {
            this(spec, records, bytes, new AtomicBoolean());
        }

        Limit[] both() {
            return new Limit[] {records, bytes};
        }
    }

    /**
     * One request's draw on its tenant's buckets. Not thread-safe (one request is read by one thread). Tokens are
     * taken from the bucket in small chunks and the unused rest is given back on {@link #close}.
     */
    public static class Charge implements AutoCloseable {
        static final Charge UNLIMITED = new Charge(null);

        /** A charge that never stops a request (a tenant without limits). */
        public static Charge unlimited() {
            return UNLIMITED;
        }

        private static final int RECORD_CHUNK = 64;

        private final Buckets buckets;
        private long recordAllowance;
        private boolean debtor;
        private String exhausted;

        private Charge(Buckets buckets) {
            this.buckets = buckets;
        }

        /** Takes one record; false when the tenant's records bucket is dry and this request must stop. */
        public boolean takeRecord() {
            if (buckets == null || buckets.records == null) {
                return true;
            }
            if (recordAllowance > 0) {
                recordAllowance--;
                return true;
            }
            long got = buckets.records.bucket.tryConsumeAsMuchAsPossible(RECORD_CHUNK);
            if (got > 0) {
                recordAllowance = got - 1;
                return true;
            }
            return inDebt(buckets.records, 1);
        }

        /** Takes {@code n} wire bytes; false when the tenant's bytes bucket is dry and this request must stop. */
        public boolean takeBytes(long n) {
            if (buckets == null || buckets.bytes == null || n <= 0) {
                return true;
            }
            long got = buckets.bytes.bucket.tryConsumeAsMuchAsPossible(n);
            return got == n || inDebt(buckets.bytes, n - got);
        }

        private boolean inDebt(Limit l, long tokens) {
            // Only a bucket that is dry, not one still paying back an earlier debtor's debt, lets a new debtor in:
            // otherwise requests admitted long ago could take turns and each finish in debt.
            if (!debtor && (l.bucket.getAvailableTokens() < 0 || !buckets.debtorActive.compareAndSet(false, true))) {
                exhausted = l.name;
                return false;
            }
            debtor = true;
            l.bucket.consumeIgnoringRateLimits(tokens);
            return true;
        }

        /** Which limit stopped this request ({@code records_per_second}, {@code bytes_per_second}), or null. */
        public String exhausted() {
            return exhausted;
        }

        @Override
        public void close() {
            if (buckets == null) {
                return;
            }
            if (recordAllowance > 0) {
                buckets.records.bucket.addTokens(recordAllowance);
                recordAllowance = 0;
            }
            if (debtor) {
                debtor = false;
                buckets.debtorActive.set(false);
            }
        }
    }

    /** When the tenant's stopped request may retry: the bucket's real refill time, capped. */
    public Duration retryAfter(String tenant, String limit) {
        Buckets b = byTenant.get(tenant);
        if (b == null) {
            return Duration.ofSeconds(1);
        }
        Limit l = "bytes_per_second".equals(limit) ? b.bytes : b.records;
        return l == null ? Duration.ofSeconds(1) : retryAfter(l);
    }
}
