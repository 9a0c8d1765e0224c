package dev.logpipe.collector.admission;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A global bound on the request bytes being processed at once, across all tenants and connections: memory stays
 * bounded under any load (invariant I6). A request reserves its size before its body is read; when the bound
 * would be passed it is refused (503) instead of queued.
 */
public final class InFlightBytes {
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    public InFlightBytes(long limit) {
        this.limit = limit;
    }

    /** Reserves {@code bytes}; false (nothing reserved) when that would pass the bound. */
    public boolean tryReserve(long bytes) {
        while (true) {
            long now = used.get();
            if (now + bytes > limit) {
                return false;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    public void release(long bytes) {
        used.addAndGet(-bytes);
    }

    public long used() {
        return used.get();
    }

    public long limit() {
        return limit;
    }
}
