package dev.logpipe.collector.internal.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestSlotsTest {
    @Test
    void aFullTenantDoesNotTakeTheSlotsOfAnotherTenantOrAddress() {
        RequestSlots slots = new RequestSlots(2, 3, 4);
        List<RequestSlots.Slot> held = new ArrayList<>();
        held.add(slots.acquire("a", "10.0.0.1").slot());
        held.add(slots.acquire("a", "10.0.0.1").slot());
        assertThat(slots.acquire("a", "10.0.0.2").full()).isEqualTo(RequestSlots.Cap.TENANT);
        held.add(slots.acquire("b", "10.0.0.1").slot());
        assertThat(slots.acquire("c", "10.0.0.1").full()).isEqualTo(RequestSlots.Cap.ADDRESS);
        held.add(slots.acquire("c", "10.0.0.2").slot());
        assertThat(slots.acquire("d", "10.0.0.3").full()).isEqualTo(RequestSlots.Cap.GLOBAL);
        assertThat(slots.inUse()).isEqualTo(4);
        held.forEach(RequestSlots.Slot::close);
        held.get(0).close(); // idempotent
        assertThat(slots.inUse()).isZero();
        assertThat(slots.acquire("a", "10.0.0.1").slot()).isNotNull();
    }

    @Test
    void parallelAcquireAndReleaseNeverLeakASlot() throws Exception {
        RequestSlots slots = new RequestSlots(5, 5, 8);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String tenant = "t" + (t % 2);
            Thread th = new Thread(() -> {
                for (int i = 0; i < 20_000; i++) {
                    RequestSlots.Slot s = slots.acquire(tenant, "addr").slot();
                    if (s != null) {
                        s.close();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(slots.inUse()).isZero();
        List<RequestSlots.Slot> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            all.add(slots.acquire("t0", "addr").slot());
        }
        assertThat(all).doesNotContainNull();
    }
}
