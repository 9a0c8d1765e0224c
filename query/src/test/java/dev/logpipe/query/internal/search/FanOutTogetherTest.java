package dev.logpipe.query.internal.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.read.CorruptShardException;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.QueryPlanner;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On an engine that calls shards together, a call over a plan's shards is one round trip, and each shard still ends
 * with its own outcome by the same causes as when searched alone: its value, a timeout, stored bytes that failed their
 * checks (by name), an error, gone; a query the engine cannot run is thrown. Searchers are handed over only with a
 * value; every other one is closed.
 */
class FanOutTogetherTest {
    static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    static final long DEADLINE = Long.MAX_VALUE;

    @TempDir
    Path data;

    ExecutorService pool;
    LuceneStore store;
    CommittedShards committed;
    Together together;
    List<ShardId> days = new ArrayList<>();

    @BeforeEach
    void threeDaysOfTenTwentyAndThirtyRecords() throws Exception {
        pool = Executors.newFixedThreadPool(2);
        ShardLayout layout = new ShardLayout(data);
        store = new LuceneStore(layout, StoreSettings.defaults(), InstantSource.fixed(T));
        RecordCodec codec = new RecordCodec();
        for (int d = 0; d < 3; d++) {
            ShardId day = ShardId.records("acme", LocalDate.ofInstant(T.plusSeconds(86_400L * d), ZoneOffset.UTC));
            days.add(day);
            List<IndexRecord> rs = new ArrayList<>();
            for (int i = 0; i < 10 * (d + 1); i++) {
                Instant t = T.plusSeconds(86_400L * d + i);
                byte[] line = codec.encode(LogRecord.builder("m " + i)
                        .recordId("r-" + d + "-" + i)
                        .tenantId("acme")
                        .eventTime(t)
                        .observedTime(t)
                        .build());
                rs.add(new IndexRecord(codec.decode(line), t, t, line, 0, line.length));
            }
            store.write(day, rs);
        }
        store.commit(Map.of("t-0", 1L));
        committed = new CommittedShards(layout, Duration.ofHours(1));
        together = new Together(committed);
    }

    @AfterEach
    void close() throws IOException {
        committed.close();
        store.close();
        pool.shutdownNow();
    }

    ShardQuery all() {
        return ShardQuery.of("acme", ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Test
    void aCallOverThePlansShardsIsOneRoundTripAnsweringWhatEachShardAnswersAlone() {
        Map<ShardId, FanOut.Outcome<Long>> alone =
                new FanOut(committed, pool).run(days, 4, DEADLINE, new ShardCall.CountOf(all()));
        Map<ShardId, FanOut.Outcome<Long>> asked =
                new FanOut(together, pool).run(days, 4, DEADLINE, new ShardCall.CountOf(all()));
        assertThat(together.rounds).isEqualTo(1);
        assertThat(together.asked).containsExactlyElementsOf(days);
        assertThat(asked.keySet()).containsExactlyElementsOf(days);
        for (ShardId d : days) {
            assertThat(asked.get(d).ok()).isTrue();
            assertThat(asked.get(d).value()).isEqualTo(alone.get(d).value());
        }
        assertThat(asked.values().stream().map(FanOut.Outcome::value).toList()).containsExactly(10L, 20L, 30L);
        assertThat(together.open).isEmpty();
    }

    @Test
    void eachShardEndsWithTheOutcomeOfItsOwnFailureAndOnlyAnsweringSearchersAreHandedOver() throws Exception {
        ShardId gone = ShardId.records("acme", LocalDate.ofInstant(T.minusSeconds(86_400), ZoneOffset.UTC));
        together.fail.put(days.get(0), new ShardSearcher.TimedOut(days.get(0)));
        together.fail.put(days.get(1), new CorruptShardException("acme/2026-12-02/_0.cfs: checksum failed"));
        List<ShardId> plan = List.of(gone, days.get(0), days.get(1), days.get(2));
        Map<ShardId, FanOut.Outcome<FanOut.Held<ShardSearcher.Keys>>> r = new FanOut(together, pool)
                .runHeld(plan, 4, DEADLINE, new ShardCall.KeysOf(all(), ShardSearcher.Order.NEWEST_FIRST, null, 5));
        assertThat(r.keySet()).containsExactlyElementsOf(plan);
        assertThat(r.get(gone).failure()).isEqualTo("gone");
        assertThat(r.get(days.get(0)).failure()).isEqualTo("timeout");
        assertThat(r.get(days.get(1)).failure()).isEqualTo("corrupt");
        assertThat(r.get(days.get(1)).detail()).contains("acme/2026-12-02/_0.cfs");
        FanOut.Held<ShardSearcher.Keys> held = r.get(days.get(2)).value();
        assertThat(held.value().keys()).hasSize(5);
        assertThat(together.open).containsExactly(days.get(2)); // the failed shards' searchers are closed
        int[] docs =
                held.value().keys().stream().mapToInt(ShardSearcher.Key::doc).toArray();
        assertThat(held.searcher().sources(docs)).doesNotContainNull(); // phase two through the held searcher
        held.close();
        assertThat(together.open).isEmpty();
    }

    @Test
    void aQueryTheEngineCannotRunIsThrownAndReleasesEverySearcher() {
        together.fail.put(days.get(1), new IllegalArgumentException("too many clauses"));
        FanOut fanOut = new FanOut(together, pool);
        assertThatThrownBy(() -> fanOut.runHeld(
                        days, 4, DEADLINE, new ShardCall.KeysOf(all(), ShardSearcher.Order.NEWEST_FIRST, null, 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too many clauses");
        assertThat(together.open).isEmpty();
    }

    @Test
    void anEngineThatCannotBeReachedFailsEveryShardAsAnError() {
        together.unreachable = true;
        Map<ShardId, FanOut.Outcome<Long>> r =
                new FanOut(together, pool).run(days, 4, DEADLINE, new ShardCall.CountOf(all()));
        assertThat(r.values()).extracting(FanOut.Outcome::failure).containsOnly("error");
        assertThat(together.open).isEmpty();
    }

    @Test
    void aCallPastItsDeadlineAsksNothingAndTimesOutEveryShard() {
        Map<ShardId, FanOut.Outcome<Long>> r =
                new FanOut(together, pool).run(days, 4, System.nanoTime() - 1, new ShardCall.CountOf(all()));
        assertThat(together.rounds).isZero();
        assertThat(r.values()).extracting(FanOut.Outcome::failure).containsOnly("timeout");
        assertThat(together.open).isEmpty();
    }

    @Test
    void aPagesSourcesFromSeveralShardsAreReadInOneRoundTrip() throws Exception {
        TimeRange range =
                new TimeRange(T.toEpochMilli(), T.plusSeconds(3 * 86_400).toEpochMilli());
        Plan plan = new QueryPlanner(together, 31, Long.MAX_VALUE)
                .plan(
                        "acme",
                        ShardKind.RECORDS,
                        range,
                        Long.MAX_VALUE,
                        ParsedQuery.ALL,
                        ShardSearcher.Order.NEWEST_FIRST,
                        null);
        try (Pages pages = new Pages(new FanOut(together, pool), plan, 4, System.nanoTime() + 10_000_000_000L)) {
            ShardQuery q = ShardQuery.of("acme", ParsedQuery.ALL, range.fromMillis(), range.toMillis());
            pages.collect(q, null, 32); // the newest day's thirty, then two of the day before
            assertThat(together.rounds).isEqualTo(2);
            String[] sources = pages.sources(Long.MAX_VALUE, System.nanoTime() + 10_000_000_000L, null)
                    .sources();
            assertThat(together.sourceReads).isEqualTo(1);
            assertThat(sources).hasSize(32).doesNotContainNull();
            for (int i = 0; i < 32; i++) {
                assertThat(sources[i])
                        .contains("\"record_id\":\""
                                + pages.winners().get(i).key().recordId().text());
            }
            assertThat(pages.winners().get(31).key().recordId().text()).startsWith("r-1-");
        }
    }

    /**
     * Lucene shards read as an engine that calls shards together would: one {@link #callAll} per round trip, with
     * failures injected per shard, and every searcher it opened tracked until closed.
     */
    static final class Together implements ShardSource {
        private final ShardSource inner;
        final Map<ShardId, Exception> fail = new HashMap<>();
        final Set<ShardId> open = ConcurrentHashMap.newKeySet();
        final List<ShardId> asked = new ArrayList<>();
        int rounds;
        int sourceReads;
        boolean unreachable;

        Together(ShardSource inner) {
            this.inner = inner;
        }

        @Override
        public boolean callsTogether() {
            return true;
        }

        @Override
        public <T> List<ShardCall.Answer<T>> callAll(
                List<ShardSearcher> searchers, ShardCall<T> call, long deadlineNanos) throws IOException {
            rounds++;
            if (unreachable) {
                throw new IOException("OpenSearch host http://127.0.0.1:9 cannot be reached");
            }
            List<ShardCall.Answer<T>> out = new ArrayList<>();
            for (ShardSearcher s : searchers) {
                asked.add(s.shard());
                Exception f = fail.get(s.shard());
                out.add(f != null ? ShardCall.Answer.failed(f) : ShardCall.Answer.of(call.on(s, deadlineNanos)));
            }
            return out;
        }

        @Override
        public String[][] sourcesAll(List<ShardSearcher> searchers, List<int[]> docs, ShardSearcher.SourceBudget budget)
                throws IOException {
            sourceReads++;
            return ShardSource.super.sourcesAll(searchers, docs, budget);
        }

        @Override
        public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
            return inner.shards(kind, tenant);
        }

        @Override
        public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
            return inner.metadata(shard);
        }

        @Override
        public Optional<ShardSearcher> open(ShardId shard) throws IOException {
            Optional<ShardSearcher> s = inner.open(shard);
            if (s.isEmpty()) {
                return s;
            }
            open.add(shard);
            ShardSearcher real = s.get();
            return Optional.of((ShardSearcher) Proxy.newProxyInstance(
                    ShardSearcher.class.getClassLoader(), new Class<?>[] {ShardSearcher.class}, (p, m, args) -> {
                        if (m.getName().equals("close")) {
                            open.remove(shard);
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }));
        }
    }
}
