package dev.logpipe.collector.internal.admission;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps on ingest requests being served at once: per tenant, per client address, and in all. A request holds one
 * slot of each from admission until its answer; one that finds a cap full is refused at once (no thread waits for
 * a slot), so slow or hostile clients of one tenant or address can hold at most their own share of the threads.
 * The server's thread pool is sized above the global cap, leaving threads for health checks and refusals.
 */
public final class RequestSlots {
    /** Which cap was full. */
    public enum Cap {
        TENANT,
        ADDRESS,
        GLOBAL
    }

    private final int perTenant;
    private final int perAddress;
    private final int global;
    private final AtomicInteger inUse = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> byTenant = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> byAddress = new ConcurrentHashMap<>();

    public RequestSlots(int perTenant, int perAddress, int global) {
        this.perTenant = perTenant;
        this.perAddress = perAddress;
        this.global = global;
    }

    /** A held slot; {@link #close} gives it back (idempotent). */
    public final class Slot implements AutoCloseable {
        private final String tenant;
        private final String address;
        private boolean closed;

        private Slot(String tenant, String address) {
            this.tenant = tenant;
            this.address = address;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release(byTenant, tenant);
                release(byAddress, address);
                inUse.decrementAndGet();
            }
        }
    }

    /** The outcome of {@link #acquire}: a slot, or the cap that was full. */
    public record Acquired(Slot slot, Cap full) {}

    public Acquired acquire(String tenant, String address) {
        if (!take(byTenant, tenant, perTenant)) {
            return new Acquired(null, Cap.TENANT);
        }
        if (!take(byAddress, address, perAddress)) {
            release(byTenant, tenant);
            return new Acquired(null, Cap.ADDRESS);
        }
        if (inUse.incrementAndGet() > global) {
            inUse.decrementAndGet();
            release(byTenant, tenant);
            release(byAddress, address);
            return new Acquired(null, Cap.GLOBAL);
        }
        return new Acquired(new Slot(tenant, address), null);
    }

    public int inUse() {
        return inUse.get();
    }

    private static boolean take(ConcurrentHashMap<String, Integer> counts, String key, int cap) {
        boolean[] taken = {false};
        counts.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= cap) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private static void release(ConcurrentHashMap<String, Integer> counts, String key) {
        // The entry goes at zero, so that one-off addresses do not accumulate.
        counts.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }
}
