package dev.logpipe.index.store.lucene;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of structured field names each tenant's open shards index, against one budget per tenant
 * ({@link StoreSettings.FieldNames#bytesPerTenant}): the per-shard cap bounds one (tenant, day), this bounds a tenant
 * writing to every day of its retention at once. A name is charged when a shard takes it or opens holding it, and
 * released when the shard closes. Thread-safe.
 */
final class FieldNameBudget {
    private final long bytesPerTenant;
    private final Map<String, AtomicLong> used = new ConcurrentHashMap<>();

    FieldNameBudget(long bytesPerTenant) {
        this.bytesPerTenant = bytesPerTenant;
    }

    /**
     * What each distinct name costs beyond its own bytes: the writer's and each segment's per-field structures. Measured
     * (FieldExplosionTest): ~5 KB of live heap per indexed name; 1 KiB keeps short names from being nearly free.
     */
    static final long PER_NAME = 1024;

    /** What a name costs: its length in UTF-8 bytes plus {@link #PER_NAME}. */
    static long cost(String name) {
        long bytes = PER_NAME;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes;
    }

    /** Charges {@code bytes} to the tenant if they fit its budget; false (nothing charged) when they do not. */
    boolean take(String tenant, long bytes) {
        AtomicLong u = used.computeIfAbsent(tenant, k -> new AtomicLong());
        while (true) {
            long now = u.get();
            if (now + bytes > bytesPerTenant) {
                return false;
            }
            if (u.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Charges names a shard already holds when it opens, whether or not they fit (its index has them anyway). */
    void force(String tenant, long bytes) {
        used.computeIfAbsent(tenant, k -> new AtomicLong()).addAndGet(bytes);
    }

    void release(String tenant, long bytes) {
        if (bytes > 0) {
            used.computeIfAbsent(tenant, k -> new AtomicLong()).addAndGet(-bytes);
        }
    }

    /** The bytes of names the tenant's open shards index now. */
    long used(String tenant) {
        AtomicLong u = used.get(tenant);
        return u == null ? 0 : u.get();
    }
}
