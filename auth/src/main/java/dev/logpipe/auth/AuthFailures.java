package dev.logpipe.auth;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Failed authentications per client address (an IPv4 address, an IPv6 /64), each address a token bucket of
 * {@code failure_burst} tokens refilled at {@code failures_per_minute}: a failed authentication takes a token, and one
 * that finds none is answered {@code 429} with {@code Retry-After} instead of {@code 401}. A valid key is never
 * refused here (keys are 128+ random bits: the limit bounds the cost and noise of guessing, not its odds).
 *
 * <p>The table is bounded in bytes ({@code max_tracked_bytes}, {@link #ENTRY_BYTES} an address, measured with a
 * Bucket4j bucket and an IPv6 key). When it is full, the address that failed longest ago is dropped if its bucket has
 * refilled (it holds nothing); otherwise the new address shares one overflow bucket with every other address not in
 * the table, so going through many addresses neither resets a bucket nor grows memory. Thread-safe.
 */
public final class AuthFailures {
    /** Heap an address in the table takes (measured: ~430 bytes for a bucket, a map entry and a 40-char key). */
    public static final long ENTRY_BYTES = 512;

    /**
     * The limit: {@code perMinute} failures refilled per minute, {@code burst} at once, the table in
     * {@code maxTrackedBytes}; {@code perMinute} 0 turns it off.
     */
    public record Policy(long perMinute, long burst, long maxTrackedBytes) {
        public static final Policy DEFAULT = new Policy(60, 20, 8L * 1024 * 1024);

        public Policy {
            if (perMinute < 0 || burst < 1 || maxTrackedBytes < ENTRY_BYTES) {
                throw new IllegalArgumentException("perMinute >= 0, burst >= 1, maxTrackedBytes >= " + ENTRY_BYTES
                        + ", was " + perMinute + ", " + burst + ", " + maxTrackedBytes);
            }
        }

        /**
         * Reads {@code failures_per_minute}, {@code failure_burst} and {@code max_tracked_bytes} of {@code n} (the
         * {@code auth:} section; unknown keys refused, every error naming its key path).
         */
        public static Policy read(ConfigNode n) throws ConfigException {
            Policy d = DEFAULT;
            long perMinute = n.integer("failures_per_minute", d.perMinute(), 0, 1_000_000);
            long burst = n.integer("failure_burst", d.burst(), 1, 1_000_000);
            long bytes = n.bytes("max_tracked_bytes", d.maxTrackedBytes(), 64 * 1024, 1L << 30);
            n.rejectUnknownKeys();
            return new Policy(perMinute, burst, bytes);
        }

        public long maxAddresses() {
            return maxTrackedBytes / ENTRY_BYTES;
        }
    }

    private final Policy policy;
    private final TimeMeter time;
    private final LinkedHashMap<String, Bucket> byAddress = new LinkedHashMap<>(64, 0.75f, true);
    private final Bucket overflow;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong throttled = new AtomicLong();
    private final AtomicLong overflowed = new AtomicLong();

    /** @param nanos a monotonic clock (System::nanoTime; a fake one in tests) */
    public AuthFailures(Policy policy, LongSupplier nanos) {
        this.policy = policy;
        this.time = new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return nanos.getAsLong();
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        };
        this.overflow = bucket();
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Counts one failed authentication from {@code address} (as the server reports the peer: an IP literal).
     * Empty when it is to be answered 401; otherwise how long until this address may fail again, to be answered 429
     * with that Retry-After.
     */
    public Optional<Duration> failed(String address) {
        if (policy.perMinute() == 0) {
            refused.incrementAndGet();
            return Optional.empty();
        }
        Bucket b;
        synchronized (byAddress) {
            b = bucketOf(addressKey(address));
        }
        ConsumptionProbe p = b.tryConsumeAndReturnRemaining(1);
        if (p.isConsumed()) {
            refused.incrementAndGet();
            return Optional.empty();
        }
        throttled.incrementAndGet();
        return Optional.of(Duration.ofNanos(Math.max(1, p.getNanosToWaitForRefill())));
    }

    private Bucket bucketOf(String key) {
        Bucket b = byAddress.get(key);
        if (b != null) {
            return b;
        }
        if (byAddress.size() >= policy.maxAddresses()) {
            Iterator<Map.Entry<String, Bucket>> eldest = byAddress.entrySet().iterator();
            if (eldest.next().getValue().getAvailableTokens() < policy.burst()) {
                overflowed.incrementAndGet();
                return overflow; // every tracked address is still paying: share one bucket, forget nobody
            }
            eldest.remove();
        }
        b = bucket();
        byAddress.put(key, b);
        return b;
    }

    private Bucket bucket() {
        return Bucket.builder()
                .withCustomTimePrecision(time)
                .addLimit(Bandwidth.builder()
                        .capacity(policy.burst())
                        .refillGreedy(Math.max(1, policy.perMinute()), Duration.ofMinutes(1))
                        .build())
                .build();
    }

    /**
     * The table key of a peer address: an IPv4 address as it is, an IPv6 address's /64 (one host is given a whole
     * /64, so a key per address would let it fail 2^64 times as often). Also what the query audit samples by.
     */
    public static String addressKey(String address) {
        if (address == null || address.isEmpty()) {
            return "unknown";
        }
        String a =
                address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1) : address;
        if (a.indexOf(':') < 0 || !a.matches("[0-9A-Fa-f:.%a-zA-Z0-9]+")) {
            return a;
        }
        try {
            byte[] b = InetAddress.getByName(a).getAddress(); // an IPv6 literal: parsed, never looked up
            if (b.length == 4) {
                return InetAddress.getByAddress(b).getHostAddress(); // IPv4-mapped
            }
            return HexFormat.of().formatHex(b, 0, 8) + "::/64";
        } catch (UnknownHostException e) {
            return a;
        }
    }

    /** Failed authentications answered 401. */
    public long refused() {
        return refused.get();
    }

    /** Failed authentications answered 429 (the address was over its limit). */
    public long throttled() {
        return throttled.get();
    }

    /** Failures counted on the shared overflow bucket because the table was full of addresses still paying. */
    public long overflowed() {
        return overflowed.get();
    }

    /** Addresses in the table now. */
    public int tracked() {
        synchronized (byAddress) {
            return byAddress.size();
        }
    }

    /**
     * Registers {@code logpipe_auth_failures_total{outcome="refused"|"throttled"}},
     * {@code logpipe_auth_failures_overflow_total} and {@code logpipe_auth_failure_addresses}. Register once per
     * process (the standalone shares one instance across its roles).
     */
    public AuthFailures register(MeterRegistry registry) {
        FunctionCounter.builder("logpipe.auth.failures", this, AuthFailures::refused)
                .description("Failed authentications (unknown, missing or ambiguous credentials), by answer")
                .tag("outcome", "refused")
                .register(registry);
        FunctionCounter.builder("logpipe.auth.failures", this, AuthFailures::throttled)
                .description("Failed authentications (unknown, missing or ambiguous credentials), by answer")
                .tag("outcome", "throttled")
                .register(registry);
        FunctionCounter.builder("logpipe.auth.failures.overflow", this, AuthFailures::overflowed)
                .description("Failed authentications counted on the shared bucket (address table full)")
                .register(registry);
        Gauge.builder("logpipe.auth.failure.addresses", this, AuthFailures::tracked)
                .description("Client addresses whose failed authentications are tracked")
                .register(registry);
        return this;
    }

    /** Whole seconds for a Retry-After header: at least 1, rounded up. */
    public static long retryAfterSeconds(Duration d) {
        return Math.max(1, (d.toMillis() + 999) / 1000);
    }

    /** The message of a 429 answered for a throttled failure. */
    public static String message(Duration retryAfter) {
        return "too many failed authentications from this address; retry after " + retryAfterSeconds(retryAfter) + " s";
    }
}
