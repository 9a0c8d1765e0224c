package dev.logpipe.query.internal.memory;

import dev.logpipe.query.internal.http.Refusal;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes of answers in flight, process-wide: a semaphore of bytes with a share per tenant. An answer reserves
 * what it reads as it reads stored sources (the reader knows a source's length before reading it; it waits, up to its
 * deadline, only before its first record) and holds it until the answer is written. Beyond the deadline the request is refused with
 * a {@code 503} (every tenant's answers hold the memory) or a {@code 429} (the caller's tenant holds its share), so
 * parallel heavy queries queue or are refused instead of exhausting the heap, and one tenant never holds more than
 * its share. Thread-safe.
 */
public final class AnswerMemory {
    private final long capacity;
    private final long perTenant;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    private final Map<String, Long> byTenant = new HashMap<>(); // guarded by lock
    private long used; // guarded by lock

    public AnswerMemory(long capacity, long perTenant) {
        if (capacity < 1 || perTenant < 1 || perTenant > capacity) {
            throw new IllegalArgumentException(
                    "need 0 < per tenant <= capacity, was " + perTenant + " of " + capacity + " bytes");
        }
        this.capacity = capacity;
        this.perTenant = perTenant;
    }

    /** Bytes reserved now by all answers. */
    public long used() {
        lock.lock();
        try {
            return used;
        } finally {
            lock.unlock();
        }
    }

    /** A request's holding, empty at first; close it once its answer is written. */
    public Lease lease(String tenant) {
        return new Lease(tenant);
    }

    /**
     * What one request holds. Thread-safe (the threads reading an answer's sources take from it at once);
     * {@link #close} is idempotent.
     */
    public final class Lease implements AutoCloseable {
        private final String tenant;
        private long held;

        private Lease(String tenant) {
            this.tenant = tenant;
        }

        public long held() {
            lock.lock();
            try {
                return held;
            } finally {
                lock.unlock();
            }
        }

        /** Reserves {@code bytes} more when the memory and the tenant's share have them now; false otherwise. */
        public boolean tryReserve(long bytes) {
            lock.lock();
            try {
                if (byTenant.getOrDefault(tenant, 0L) + bytes > perTenant || used + bytes > capacity) {
                    return false;
                }
                take(bytes);
                return true;
            } finally {
                lock.unlock();
            }
        }

        /**
         * Reserves {@code bytes} more, waiting until {@code deadlineNanos} ({@link System#nanoTime()}) for memory
         * to be given back.
         *
         * @throws Refusal 503 {@code answer_memory} or 429 {@code tenant_answer_memory} at the deadline
         */
        public void reserve(long bytes, long deadlineNanos) {
            try {
                lock.lockInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Refusal(503, "answer_memory", "interrupted while waiting for memory");
            }
            try {
                while (true) {
                    long t = byTenant.getOrDefault(tenant, 0L);
                    boolean tenantFull = t + bytes > perTenant;
                    boolean full = used + bytes > capacity;
                    if (!tenantFull && !full) {
                        take(bytes);
                        return;
                    }
                    long wait = deadlineNanos - System.nanoTime();
                    if (wait <= 0) {
                        throw tenantFull
                                ? new Refusal(
                                        429,
                                        "tenant_answer_memory",
                                        "tenant " + tenant + "'s answers in flight hold its share of memory ("
                                                + perTenant + " bytes, limits.tenant_answer_memory_bytes); retry "
                                                + "shortly or ask for smaller pages")
                                : new Refusal(
                                        503,
                                        "answer_memory",
                                        "answers in flight hold all the memory for answers (" + capacity
                                                + " bytes, limits.answer_memory_bytes); retry shortly");
                    }
                    freed.awaitNanos(wait);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Refusal(503, "answer_memory", "interrupted while waiting for memory");
            } finally {
                lock.unlock();
            }
        }

        /**
         * Takes {@code bytes} more without waiting, even past the capacity: for what was read already (an answer's
         * first record, which is sent whatever its size). Later reservations wait until it is given back.
         */
        public void force(long bytes) {
            lock.lock();
            try {
                take(bytes);
            } finally {
                lock.unlock();
            }
        }

        /** Gives back all but {@code keep} bytes of what this lease holds. */
        public void keep(long keep) {
            lock.lock();
            try {
                give(Math.max(0, held - Math.max(0, keep)));
            } finally {
                lock.unlock();
            }
        }

        private void take(long bytes) {
            held += bytes;
            used += bytes;
            byTenant.merge(tenant, bytes, Long::sum);
        }

        private void give(long bytes) {
            if (bytes == 0) {
                return;
            }
            held -= bytes;
            used -= bytes;
            byTenant.computeIfPresent(tenant, (k, v) -> v - bytes == 0 ? null : v - bytes);
            freed.signalAll();
        }

        @Override
        public void close() {
            keep(0);
        }
    }
}
