package dev.logpipe.query.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.store.read.IdBytes;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class SentWindowTest {
    /** A step: add a batch of (time, id) records, or drop those before a time. */
    record Step(long dropBefore, List<Long> times, List<Integer> ids) {}

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> add = Combinators.combine(
                        Arbitraries.longs().between(0, 200).list().ofMinSize(1).ofMaxSize(40),
                        Arbitraries.integers().between(0, 5000).list().ofSize(40))
                .as((t, i) -> new Step(Long.MIN_VALUE, t, i));
        Arbitrary<Step> drop = Arbitraries.longs().between(0, 200).map(t -> new Step(t, List.of(), List.of()));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, add), net.jqwik.api.Tuple.of(1, drop))
                .list()
                .ofMaxSize(60);
    }

    /** The window answers as a sorted multiset of (time, id) does, whatever the order records are added in. */
    @Property(tries = 300)
    void answersLikeASortedListOfWhatWasSent(@ForAll("steps") List<Step> steps) {
        SentWindow w = new SentWindow(64 * 1024);
        TreeMap<Long, TreeMap<Long, Integer>> model = new TreeMap<>(); // time -> hash -> copies
        for (Step s : steps) {
            if (s.dropBefore() != Long.MIN_VALUE) {
                w.dropBefore(s.dropBefore());
                model.headMap(s.dropBefore()).clear();
            } else {
                int n = s.times().size();
                long[] times = new long[n];
                long[] hashes = new long[n];
                for (int i = 0; i < n; i++) {
                    times[i] = s.times().get(i);
                    hashes[i] = SentWindow.hash(IdBytes.of("id-" + s.ids().get(i)));
                    model.computeIfAbsent(times[i], k -> new TreeMap<>()).merge(hashes[i], 1, Integer::sum);
                }
                w.add(times, hashes, n);
            }
            long size = model.values().stream()
                    .flatMap(m -> m.values().stream())
                    .mapToLong(Integer::longValue)
                    .sum();
            assertThat(w.size()).isEqualTo(size);
            for (long t = -1; t <= 201; t += 7) {
                long below = model.headMap(t).values().stream()
                        .flatMap(m -> m.values().stream())
                        .mapToLong(Integer::longValue)
                        .sum();
                assertThat(w.countBefore(t)).isEqualTo(below);
            }
            for (int id = 0; id < 5000; id += 97) {
                long h = SentWindow.hash(IdBytes.of("id-" + id));
                for (long t = 0; t <= 200; t += 13) {
                    boolean held = model.containsKey(t) && model.get(t).containsKey(h);
                    assertThat(w.contains(t, h)).isEqualTo(held);
                }
            }
        }
    }

    @Test
    void itNeverTakesMoreThanItsBudgetAndSaysWhereToStartToMakeRoom() {
        long budget = 32 * 1024; // 2,048 records
        SentWindow w = new SentWindow(budget);
        long t = 0;
        for (int batch = 0; batch < 50; batch++) {
            long[] times = new long[500];
            long[] hashes = new long[500];
            for (int i = 0; i < 500; i++) {
                times[i] = t++ / 3; // three records a millisecond
                hashes[i] = SentWindow.hash(IdBytes.of("r" + t));
            }
            long floor = w.floorToKeep(w.capacity() - 500);
            if (floor != Long.MIN_VALUE) {
                w.dropBefore(floor);
            }
            w.add(times, hashes, 500);
            assertThat(w.bytes()).isLessThanOrEqualTo(budget);
            assertThat(w.size()).isLessThanOrEqualTo(w.capacity());
        }
        assertThat(w.capacity()).isEqualTo(2048);
        assertThat(w.size()).isGreaterThan(1000); // it made room by dropping only the oldest
        long[] more = new long[w.capacity() - w.size() + 1];
        assertThatThrownBy(() -> w.add(more, more.clone(), more.length)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aCollapsedMillisecondIsStillCountedAndTakenForSentUntilDropped() {
        SentWindow w = new SentWindow(16 * 1024);
        long[] times = {7, 7, 7};
        long[] hashes = {1, 2, 3};
        w.add(times, hashes, 3);
        w.collapse();
        assertThat(w.size()).isZero();
        assertThat(w.countBefore(8)).isEqualTo(3);
        assertThat(w.countBefore(7)).isZero();
        assertThat(w.contains(7, 99)).as("any record of it is taken for sent").isTrue();
        w.add(new long[] {7, 9}, new long[] {4, 5}, 2);
        assertThat(w.size()).as("only the later millisecond is held by hash").isEqualTo(1);
        assertThat(w.countBefore(8)).isEqualTo(4);
        assertThat(w.countBefore(10)).isEqualTo(5);
        assertThat(w.contains(9, 5)).isTrue();
        assertThat(w.contains(9, 6)).isFalse();
        w.dropBefore(8);
        assertThat(w.countBefore(10)).isEqualTo(1);
        assertThat(w.contains(7, 99)).isFalse();
    }

    @Test
    void onlyOneMillisecondCollapses() {
        SentWindow w = new SentWindow(16 * 1024);
        w.add(new long[] {7, 8}, new long[] {1, 2}, 2);
        assertThatThrownBy(w::collapse)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("7..8");
    }

    @Test
    void idsAreKeptAsSixtyFourBitHashes() {
        assertThat(SentWindow.hash(IdBytes.of("a"))).isNotEqualTo(SentWindow.hash(IdBytes.of("b")));
        assertThat(SentWindow.hash(IdBytes.of("a")) >>> 32).isNotZero();
        assertThat(SentWindow.hash(IdBytes.of("abc"))).isEqualTo(SentWindow.hash(IdBytes.of("abc")));
    }
}
