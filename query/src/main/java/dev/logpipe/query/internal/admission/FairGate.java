package dev.logpipe.query.internal.admission;

import dev.logpipe.query.internal.http.Refusal;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Admits queries to a fixed number of running slots, taking waiting tenants in turn, so that one tenant's flood of
 * heavy queries delays another tenant's query by at most one query, not by the whole flood. A tenant holds at most
 * {@code perTenantRunning} slots at once (so a newcomer finds a free slot while fewer than
 * {@code slots / perTenantRunning} tenants are busy) and has at most its own cap of queries running or waiting;
 * beyond that {@link #enter} refuses at once. A waiter gives up at its deadline. Thread-safe.
 */
public final class FairGate {
    private final int slots;
    private final int perTenantRunning;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, TenantQueue> tenants = new HashMap<>();
    /** Tenants with a waiter that may run (below their running cap), in the order they get the next slot. */
    private final ArrayDeque<TenantQueue> turn = new ArrayDeque<>();

    private int running;

    public FairGate(int slots, int perTenantRunning) {
        if (slots < 1 || perTenantRunning < 1 || perTenantRunning > slots) {
            throw new IllegalArgumentException(
                    "need 1 <= perTenantRunning <= slots, was " + perTenantRunning + " of " + slots);
        }
        this.slots = slots;
        this.perTenantRunning = perTenantRunning;
    }

    /** Why {@link #enter} did not admit a query. */
    public enum Refusal {
        /** The tenant already has its cap of queries running or waiting. */
        TENANT_CAP,
        /** The deadline passed while the query waited for a slot. */
        DEADLINE
    }

    /** A query admitted to run: close it exactly once when the query is done (idempotent). */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    /** Thrown by {@link #enter} when a query is not admitted. */
    public static final class NotAdmitted extends Exception {
        private final Refusal refusal;

        NotAdmitted(Refusal refusal, String message) {
            super(message, null, false, false);
            this.refusal = refusal;
        }

        public Refusal refusal() {
            return refusal;
        }
    }

    /**
     * Waits for a slot for {@code tenant} until {@code deadlineNanos} (on {@link System#nanoTime()}'s scale).
     *
     * @param tenantCap the most queries the tenant may have running or waiting
     * @throws NotAdmitted at once when the tenant is at its cap, or at the deadline
     * @throws InterruptedException the waiting thread was interrupted (it no longer waits)
     */
    public Permit enter(String tenant, int tenantCap, long deadlineNanos) throws NotAdmitted, InterruptedException {
        lock.lock();
        try {
            TenantQueue q = tenants.computeIfAbsent(tenant, TenantQueue::new);
            if (q.running + q.waiting.size() >= tenantCap) {
                throw new NotAdmitted(
                        Refusal.TENANT_CAP,
                        "tenant " + tenant + " has " + tenantCap + " queries running or waiting; retry shortly");
            }
            if (turn.isEmpty() && running < slots && q.running < perTenantRunning) {
                return admit(q);
            }
            Waiter w = new Waiter(lock.newCondition());
            q.waiting.addLast(w);
            if (q.running < perTenantRunning && !turn.contains(q)) {
                turn.addLast(q);
            }
            dispatch();
            try {
                while (!w.granted) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        q.waiting.remove(w);
                        if (q.waiting.isEmpty()) {
                            turn.remove(q);
                        }
                        forget(q);
                        throw new NotAdmitted(
                                Refusal.DEADLINE, "no search slot free before the query's deadline; retry shortly");
                    }
                    w.condition.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                if (w.granted) {
                    release(q);
                } else {
                    q.waiting.remove(w);
                    if (q.waiting.isEmpty()) {
                        turn.remove(q);
                    }
                    forget(q);
                }
                throw e;
            }
            return permit(q);
        } finally {
            lock.unlock();
        }
    }

    /** Queries running now, over all tenants. */
    public int running() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }

    /** Queries waiting for a slot now, over all tenants. */
    public int waiting() {
        lock.lock();
        try {
            int n = 0;
            for (TenantQueue q : tenants.values()) {
                n += q.waiting.size();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    private Permit admit(TenantQueue q) {
        running++;
        q.running++;
        return permit(q);
    }

    private Permit permit(TenantQueue q) {
        return new Permit() {
            private boolean closed;

            @Override
            public void close() {
                lock.lock();
                try {
                    if (!closed) {
                        closed = true;
                        release(q);
                    }
                } finally {
                    lock.unlock();
                }
            }
        };
    }

    private void release(TenantQueue q) {
        running--;
        q.running--;
        if (!q.waiting.isEmpty() && q.running < perTenantRunning && !turn.contains(q)) {
            turn.addLast(q);
        }
        dispatch();
        forget(q);
    }

    /** Hands free slots to the tenants whose turn it is, one waiter each, round robin. */
    private void dispatch() {
        while (running < slots && !turn.isEmpty()) {
            TenantQueue q = turn.pollFirst();
            Waiter w = q.waiting.pollFirst();
            running++;
            q.running++;
            w.granted = true;
            w.condition.signal();
            if (!q.waiting.isEmpty() && q.running < perTenantRunning) {
                turn.addLast(q);
            }
        }
    }

    /** Drops an idle tenant's entry, so the map holds only tenants with queries running or waiting. */
    private void forget(TenantQueue q) {
        if (q.running == 0 && q.waiting.isEmpty()) {
            tenants.remove(q.tenant);
            for (Iterator<TenantQueue> it = turn.iterator(); it.hasNext(); ) {
                if (it.next() == q) {
                    it.remove();
                }
            }
        }
    }

    private static final class TenantQueue {
        final String tenant;
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        int running;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    private static final class Waiter {
        final Condition condition;
        boolean granted;

        Waiter(Condition condition) {
            this.condition = condition;
        }
    }
}
