package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A poll's shards taken in turn into its bulk lines, so every body holds every index of the poll. */
class InterleavedItemsTest {
    private static final LocalDate DAY = LocalDate.of(2025, 3, 14);

    private static final RecordCodec CODEC = new RecordCodec();
    private static final Instant T = Instant.parse("2025-03-14T18:02:07Z");

    private static List<IndexRecord> records(String tenant, int n) throws Exception {
        List<IndexRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] line = CODEC.encode(LogRecord.builder("m")
                    .recordId(tenant + "-" + i)
                    .tenantId(tenant)
                    .eventTime(T)
                    .observedTime(T)
                    .build());
            out.add(new IndexRecord(CODEC.decode(line), T, T, line, 0, line.length));
        }
        return out;
    }

    @Test
    void shardsAreTakenInTurnEachInItsOwnOrderUntilEveryRecordIsTaken() throws Exception {
        Map<ShardId, List<IndexRecord>> batches = new LinkedHashMap<>();
        batches.put(ShardId.records("acme", DAY), records("acme", 5));
        batches.put(ShardId.records("beta", DAY), records("beta", 1));
        batches.put(ShardId.records("zeta", DAY), records("zeta", 3));
        List<OpenSearchStore.Item> items = OpenSearchStore.interleaved(batches, new IndexNames("lp"));
        assertThat(items)
                .extracting(i -> i.record().record().recordId())
                .containsExactly(
                        "acme-0", "beta-0", "zeta-0", "acme-1", "zeta-1", "acme-2", "zeta-2", "acme-3", "acme-4");
        for (OpenSearchStore.Item item : items) {
            assertThat(batches.get(item.shard()).get(item.inShard())).isSameAs(item.record());
            assertThat(item.index()).isEqualTo(new IndexNames("lp").of(item.shard()));
        }
    }

    @Test
    void theFirstBodyOfAPollOfThreeEqualShardsHoldsAllThree() throws Exception {
        Map<ShardId, List<IndexRecord>> batches = new LinkedHashMap<>();
        for (String tenant : List.of("acme", "beta", "zeta")) {
            batches.put(ShardId.records(tenant, DAY), records(tenant, 300));
        }
        List<OpenSearchStore.Item> first =
                OpenSearchStore.interleaved(batches, new IndexNames("lp")).subList(0, 300);
        assertThat(first.stream().map(OpenSearchStore.Item::shard).distinct()).hasSize(3);
        assertThat(first.stream().filter(i -> i.shard().tenant().equals("acme")))
                .hasSize(100);
    }
}
