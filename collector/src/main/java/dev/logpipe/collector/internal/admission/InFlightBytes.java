package dev.logpipe.collector.internal.admission;

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

    /** Reserves {@code initial} bytes, or returns null when that would pass the bound. */
    public Reservation reserve(long initial) {
        return tryReserve(initial) ? new Reservation(initial) : null;
    }

    /** Bytes held for one request; it can grow (a body that decompresses) and is released once, on close. */
    public final class Reservation implements AutoCloseable {
        private long held;

        private Reservation(long held) {
            this.held = held;
        }

        /** Grows the reservation to at least {@code total} bytes; false when the bound does not allow it. */
        public boolean growTo(long total) {
            if (total <= held) {
                return true;
            }
            if (!tryReserve(total - held)) {
                return false;
            }
            held = total;
            return true;
        }

        /** Bytes held now. */
        public long bytes() {
            return held;
        }

        @Override
        public void close() {
            release(held);
            held = 0;
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
