package dev.logpipe.indexer.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.indexer.stage.StageOffsets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RefresherTest {
    static final Instant NOW = Instant.parse("2026-12-02T03:00:00Z");

    @TempDir
    Path data;

    @Test
    void refreshesSlowDownOnlyWhileTheRecordsTheyShowHadWaitedInKafkaLongerThanThreeBehindIntervals() throws Exception {
        AtomicReference<Instant> now = new AtomicReference<>(NOW);
        InstantSource clock = now::get;
        StageOffsets stages = new StageOffsets(clock);
        stages.assigned("logpipe.records-0", 0);
        try (LuceneStore store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock)) {
            Refresher r = refresher(store, stages, clock);
            assertThat(r.behindAge()).isEqualTo(Duration.ofSeconds(3));
            assertThat(r.refreshOnce()).as("nothing indexed yet").isFalse();

            index(stages, 10, NOW.minusSeconds(60)); // a backlog: appended a minute ago, indexed now
            assertThat(r.refreshOnce()).isTrue();
            assertThat(r.refreshOnce())
                    .as("nothing new: a record arriving now must not wait")
                    .isFalse();

            index(stages, 20, NOW.minusMillis(2_900)); // caught up: within three behind intervals
            assertThat(r.refreshOnce()).isFalse();

            now.set(NOW.plusSeconds(3600)); // idle for an hour, then one fresh record
            index(stages, 21, now.get().minusMillis(40));
            assertThat(r.refreshOnce()).isFalse();
            assertThat(stages.snapshot().get(0).queryable()).isEqualTo(21);
        }
    }

    @Test
    void aSlowRefreshOfFreshRecordsKeepsTheFastCadenceWhileABacklogStillSlowsIt() throws Exception {
        AtomicReference<Instant> now = new AtomicReference<>(NOW);
        InstantSource clock = now::get;
        StageOffsets stages = new StageOffsets(clock);
        stages.assigned("logpipe.records-0", 0);
        try (LuceneStore lucene = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock)) {
            ShardStore fiveSecondRefresh = refreshTaking(lucene, () -> now.updateAndGet(t -> t.plusSeconds(5)));
            Refresher r = refresher(fiveSecondRefresh, stages, clock);

            index(stages, 10, now.get().minusMillis(100)); // caught up: appended 0.1 s before the refresh starts
            assertThat(r.refreshOnce())
                    .as("the refresh took 5 s, but its records had waited 0.1 s when it started: not a backlog")
                    .isFalse();
            assertThat(stages.snapshot().get(0).queryable()).isEqualTo(10);

            index(stages, 20, now.get().minusSeconds(60)); // a backlog
            assertThat(r.refreshOnce()).isTrue();
        }
    }

    /** Refreshes every 250 ms, every second while behind. */
    private static Refresher refresher(ShardStore store, StageOffsets stages, InstantSource clock) {
        return new Refresher(
                store,
                stages,
                new IndexerMetrics(new SimpleMeterRegistry()),
                Duration.ofMillis(250),
                Duration.ofSeconds(1),
                clock);
    }

    /** The store, whose refresh also runs {@code during} (a clock moved on by a slow refresh). */
    private static ShardStore refreshTaking(ShardStore store, Runnable during) {
        return (ShardStore) Proxy.newProxyInstance(
                ShardStore.class.getClassLoader(), new Class<?>[] {ShardStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("refresh")) {
                        during.run();
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static void index(StageOffsets stages, long next, Instant appended) {
        stages.read("logpipe.records-0", next, appended.toEpochMilli());
        stages.indexed("logpipe.records-0", next, appended.toEpochMilli());
    }
}
