package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.testkit.Integration;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The read side's own behaviour on a real OpenSearch 2.19 node: the kept listing and indices deleted under it. */
@Integration
@ExtendWith(OpenSearchExtension.class)
class OpenSearchShardsTest {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static final long NO_DEADLINE = Long.MAX_VALUE;
    private OpenSearchSettings settings;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    @BeforeEach
    void prefix(OpenSearchExtension.Node node) {
        OpenSearchSettings local = OpenSearchSettings.local(URI.create(node.base()));
        this.settings = new OpenSearchSettings(
                local.hosts(),
                local.credential(),
                Optional.empty(),
                "shards" + PREFIXES.incrementAndGet(),
                1,
                0,
                Duration.ofSeconds(30),
                local.bulkBytes(),
                local.requestTimeout(),
                OpenSearchSettings.DEFAULT_BULK_CONCURRENCY);
    }

    private static ShardQuery all(String tenant) {
        return ShardQuery.of(tenant, ParsedQuery.parse(""), Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Test
    void theIndicesAreListedOncePerTtlForEveryTenantAndANewDayIsSeenOnceTheListingIsThatOld() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId first = ShardId.records("acme", OpenSearchStoreTest.DAY);
        ShardId next = ShardId.records("acme", OpenSearchStoreTest.DAY.plusDays(1));
        ShardId zeta = ShardId.records("zeta", OpenSearchStoreTest.DAY);
        store.write(first, List.of(OpenSearchStoreTest.record("acme", "a-1", "day one", Map.of())));
        store.refresh();
        OpenSearchShards reader = OpenSearchShards.open(settings, Duration.ofSeconds(1), clock::get);
        assertThat(reader.shards(ShardKind.RECORDS, "acme")).containsExactly(first);

        store.write(next, List.of(OpenSearchStoreTest.record("acme", "a-2", "day two", Map.of())));
        store.write(zeta, List.of(OpenSearchStoreTest.record("zeta", "z-1", "other tenant", Map.of())));
        store.refresh();
        clock.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(reader.shards(ShardKind.RECORDS, "acme"))
                .as("the listing is kept for a second")
                .containsExactly(first);
        assertThat(reader.shards(ShardKind.RECORDS, "zeta"))
                .as("one listing serves every tenant")
                .isEmpty();

        clock.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(reader.shards(ShardKind.RECORDS, "acme")).containsExactly(first, next);
        assertThat(reader.shards(ShardKind.RECORDS, "zeta")).containsExactly(zeta);
        assertThat(reader.shards(ShardKind.DEAD_LETTERS, "acme"))
                .as("each kind has its own listing")
                .isEmpty();
        store.close();
    }

    @Test
    void aSearcherOfAnIndexDeletedSinceItWasListedAnswersAsAnEmptyIndex() throws Exception {
        OpenSearchStore store = OpenSearchStore.open(settings);
        ShardId day = ShardId.records("acme", OpenSearchStoreTest.DAY);
        store.write(day, List.of(OpenSearchStoreTest.record("acme", "a-1", "kept until retention", Map.of())));
        store.refresh();
        OpenSearchShards reader = OpenSearchShards.open(settings, Duration.ofSeconds(1), clock::get);
        assertThat(reader.shards(ShardKind.RECORDS, "acme")).containsExactly(day);
        ShardQuery q = all("acme");
        try (ShardSearcher s = reader.open(day).orElseThrow()) {
            ShardSearcher.Keys keys = s.keys(q, ShardSearcher.Order.NEWEST_FIRST, null, 10, NO_DEADLINE);
            assertThat(keys.keys()).hasSize(1);
            assertThat(store.delete(day)).isTrue();
            assertThat(s.sources(new int[] {keys.keys().get(0).doc()}, (i, bytes) -> true))
                    .as("a source deleted between the key and its reading")
                    .containsExactly((String) null);
        }

        assertThat(reader.shards(ShardKind.RECORDS, "acme")).as("still listed").containsExactly(day);
        try (ShardSearcher s = reader.open(day).orElseThrow()) {
            assertThat(s.keys(q, ShardSearcher.Order.NEWEST_FIRST, null, 10, NO_DEADLINE)
                            .keys())
                    .isEmpty();
            assertThat(s.count(q, NO_DEADLINE)).isZero();
            long start = OpenSearchStoreTest.T.toEpochMilli() - 60_000;
            assertThat(s.histogram(q, new Histogram(start, 60_000, 2), NO_DEADLINE))
                    .containsExactly(0, 0);
            assertThat(s.values(q, "service", 10, NO_DEADLINE).counts()).isEmpty();
        }
        store.close();
    }
}
