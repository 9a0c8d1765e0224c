package dev.logpipe.query.internal.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FairGateTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(30);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static long in(long nanos) {
        return System.nanoTime() + nanos;
    }

    @Test
    void aTenantFloodingTheGateLeavesASlotForAnotherTenant() throws Exception {
        FairGate gate = new FairGate(2, 1);
        FairGate.Permit flooding = gate.enter("attacker", 8, in(LONG));
        for (int i = 0; i < 5; i++) {
            threads.submit(() -> gate.enter("attacker", 8, in(LONG)));
        }
        await().until(() -> gate.waiting() == 5);

        long t = System.nanoTime();
        try (FairGate.Permit victim = gate.enter("victim", 8, in(LONG))) {
            assertThat(System.nanoTime() - t).isLessThan(TimeUnit.SECONDS.toNanos(1));
            assertThat(gate.running()).isEqualTo(2);
        }
        flooding.close();
    }

    @Test
    void waitingTenantsAreServedInTurnNotInArrivalOrder() throws Exception {
        FairGate gate = new FairGate(1, 1);
        List<String> order = new CopyOnWriteArrayList<>();
        FairGate.Permit first = gate.enter("z", 8, in(LONG));
        List<Future<FairGate.Permit>> waiting = new java.util.ArrayList<>();
        for (String who : List.of("a1", "a2", "a3", "b1")) {
            waiting.add(threads.submit(() -> {
                FairGate.Permit p = gate.enter(who.substring(0, 1), 8, in(LONG));
                order.add(who);
                return p;
            }));
            int queued = waiting.size();
            await().until(() -> gate.waiting() == queued);
        }
        first.close();
        for (int step = 1; step <= 4; step++) {
            int granted = step;
            await().until(() -> order.size() == granted);
            FairGate.Permit p = waiting.get(index(order.get(step - 1))).get();
            p.close();
        }
        assertThat(order).containsExactly("a1", "b1", "a2", "a3");
    }

    private static int index(String who) {
        return List.of("a1", "a2", "a3", "b1").indexOf(who);
    }

    @Test
    void aTenantAtItsCapIsRefusedAtOnce() throws Exception {
        FairGate gate = new FairGate(4, 2);
        FairGate.Permit a = gate.enter("t", 2, in(LONG));
        FairGate.Permit b = gate.enter("t", 2, in(LONG));
        assertThatThrownBy(() -> gate.enter("t", 2, in(LONG)))
                .isInstanceOfSatisfying(
                        FairGate.NotAdmitted.class,
                        e -> assertThat(e.refusal()).isEqualTo(FairGate.Refusal.TENANT_CAP));
        a.close();
        b.close();
        assertThat(gate.running()).isZero();
    }

    @Test
    void aWaiterGivesUpAtItsDeadlineAndLeavesNothingBehind() throws Exception {
        FairGate gate = new FairGate(1, 1);
        FairGate.Permit holder = gate.enter("a", 8, in(LONG));
        long t = System.nanoTime();
        assertThatThrownBy(() -> gate.enter("b", 8, in(Duration.ofMillis(200).toNanos())))
                .isInstanceOfSatisfying(
                        FairGate.NotAdmitted.class, e -> assertThat(e.refusal()).isEqualTo(FairGate.Refusal.DEADLINE));
        assertThat(System.nanoTime() - t)
                .isBetween(
                        Duration.ofMillis(190).toNanos(), Duration.ofSeconds(5).toNanos());
        assertThat(gate.waiting()).isZero();
        holder.close();
        try (FairGate.Permit next = gate.enter("b", 8, in(LONG))) {
            assertThat(gate.running()).isEqualTo(1);
        }
    }

    @Test
    void closingAPermitTwiceFreesOneSlot() throws Exception {
        FairGate gate = new FairGate(2, 2);
        FairGate.Permit a = gate.enter("t", 8, in(LONG));
        FairGate.Permit b = gate.enter("t", 8, in(LONG));
        a.close();
        a.close();
        assertThat(gate.running()).isEqualTo(1);
        b.close();
        assertThat(gate.running()).isZero();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueue() throws Exception {
        FairGate gate = new FairGate(1, 1);
        FairGate.Permit holder = gate.enter("a", 8, in(LONG));
        Future<?> waiter = threads.submit(() -> gate.enter("b", 8, in(LONG)));
        await().until(() -> gate.waiting() == 1);
        waiter.cancel(true);
        await().until(() -> gate.waiting() == 0);
        holder.close();
        assertThat(gate.running()).isZero();
    }
}
