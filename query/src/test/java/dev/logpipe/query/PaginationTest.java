package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 5,000 records with one identical event time spread over several shards: pages never repeat or skip. */
class PaginationTest {
    static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final int N = 5000;

    @TempDir
    Path data;

    @Test
    void pagesOverThousandsOfIdenticalTimestampsAcrossShardsNeitherRepeatNorSkip() throws Exception {
        List<String> ids = new ArrayList<>();
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.system())) {
            // three shards, each a slice of the same instant (and several segments each)
            for (int i = 0; i < N; i++) {
                String id = "r-" + Integer.toString(i * 7919 % 100_003, 36) + "-" + i;
                ids.add(id);
                LogRecord r = QueryFixture.record("acme", id, T, "tick " + i).build();
                byte[] line = QueryFixture.CODEC.encode(r);
                ShardId shard =
                        ShardId.records("acme", LocalDate.parse("2026-12-01").minusDays(i % 3));
                store.write(
                        shard, List.of(new IndexRecord(QueryFixture.CODEC.decode(line), T, T, line, 0, line.length)));
                if (i % 1500 == 0) {
                    store.commit(Map.of());
                }
            }
            store.commit(Map.of());
        }
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            for (String order : List.of("desc", "asc")) {
                List<String> first = pages(q, order, 173);
                List<String> second = pages(q, order, 173);
                assertThat(first).hasSize(N);
                assertThat(new HashSet<>(first)).hasSize(N).containsExactlyInAnyOrderElementsOf(ids);
                assertThat(second).containsExactlyElementsOf(first);
                List<String> sorted = new ArrayList<>(ids);
                sorted.sort((a, b) ->
                        Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
                if (order.equals("asc")) {
                    Collections.reverse(sorted);
                }
                assertThat(first).containsExactlyElementsOf(sorted);
            }
            assertThat(pages(q, "desc", 1000)).hasSize(N);
        }
    }

    static List<String> pages(QueryProcess q, String order, int limit) throws Exception {
        List<String> out = new ArrayList<>();
        Set<String> cursors = new HashSet<>();
        String cursor = null;
        String base = "/api/v1/search?from=2026-11-28T00:00:00Z&to=now&order=" + order + "&limit=" + limit + "&q="
                + enc("tick");
        do {
            JsonNode j = json(get(q, base + (cursor == null ? "" : "&cursor=" + cursor), ACME_KEY));
            assertThat(j.get("partial").asBoolean()).isFalse();
            j.get("hits").forEach(h -> out.add(h.get("record_id").asText()));
            cursor = j.has("next_cursor") ? j.get("next_cursor").asText() : null;
            assertThat(cursor == null || cursors.add(cursor)).isTrue();
        } while (cursor != null);
        return out;
    }
}
