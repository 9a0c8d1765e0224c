package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.record.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search visits day shards in merge order and stops once its page is full and no shard left can contribute: its
 * pages are exactly those of a full merge over all shards (here: the records sorted by the merge key), in both orders,
 * with many records on one millisecond and on both sides of day boundaries; the answer says which shards were not
 * needed, without claiming a partial answer, and counts those shards for an exact total (limits.exact_total_budget).
 */
class EarlyStopTest {
    static final Instant NOW = Instant.parse("2026-12-08T00:00:00Z");
    static final int DAYS = 6;

    @TempDir
    Path data;

    record Rec(String id, long t, boolean odd) {}

    List<Rec> write() throws Exception {
        Random rnd = new Random(7);
        List<Rec> recs = new ArrayList<>();
        List<LogRecord> out = new ArrayList<>();
        long firstDay = NOW.minusSeconds(86_400L * DAYS).toEpochMilli();
        for (int d = 0; d < DAYS; d++) {
            long dayStart = firstDay + d * 86_400_000L;
            for (int i = 0; i < 60; i++) {
                long t = switch (i % 4) {
                    case 0 -> dayStart; // the first millisecond of the day...
                    case 1 -> dayStart + 86_400_000L - 1; // ...the last one...
                    case 2 -> dayStart + 43_200_000L; // ...and one in the middle, many records each
                    default -> dayStart + rnd.nextInt(86_400_000);
                };
                String id = Integer.toString(rnd.nextInt(1 << 30), 36) + "-" + d + "-" + i;
                boolean odd = i % 2 == 1;
                recs.add(new Rec(id, t, odd));
                out.add(record("acme", id, Instant.ofEpochMilli(t), "tick " + (odd ? "odd" : "even"))
                        .build());
            }
        }
        Collections.shuffle(out, rnd);
        QueryFixture.write(data, out);
        return recs;
    }

    static List<String> expected(List<Rec> recs, String order, boolean oddOnly) {
        Comparator<Rec> newestFirst = Comparator.<Rec>comparingLong(r -> -r.t())
                .thenComparing((a, b) -> Arrays.compareUnsigned(
                        a.id().getBytes(StandardCharsets.UTF_8), b.id().getBytes(StandardCharsets.UTF_8)));
        List<Rec> sorted =
                new ArrayList<>(recs.stream().filter(r -> !oddOnly || r.odd()).toList());
        sorted.sort(order.equals("desc") ? newestFirst : newestFirst.reversed());
        return sorted.stream().map(Rec::id).toList();
    }

    @Test
    void pagesThatStopEarlyAreThoseOfAFullMergeInBothOrders() throws Exception {
        List<Rec> recs = write();
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            for (String order : List.of("desc", "asc")) {
                for (String text : List.of("tick", "odd")) {
                    List<String> want = expected(recs, order, text.equals("odd"));
                    for (int limit : List.of(1, 7, 30, 59, 60, 61, 250, 1000)) {
                        List<String> got = new ArrayList<>();
                        String cursor = null;
                        do {
                            JsonNode j = json(get(
                                    q,
                                    "/api/v1/search?from=now-7d&to=now&order=" + order + "&limit=" + limit + "&q="
                                            + enc(text) + (cursor == null ? "" : "&cursor=" + cursor),
                                    ACME_KEY));
                            assertThat(j.get("partial").asBoolean()).isFalse();
                            JsonNode s = j.get("shards");
                            assertThat(s.get("searched").asInt()
                                            + s.get("not_needed").asInt()
                                            + s.get("pruned").asInt())
                                    .isEqualTo(s.get("planned").asInt());
                            if (s.get("not_needed").asInt() > 0) { // counted, not searched for the page
                                assertThat(j.get("total").get("relation").asText())
                                        .isEqualTo("eq");
                                assertThat(j.get("hits")).hasSize(limit);
                            }
                            j.get("hits")
                                    .forEach(h -> got.add(h.get("record_id").asText()));
                            cursor = j.has("next_cursor") ? j.get("next_cursor").asText() : null;
                        } while (cursor != null);
                        assertThat(got)
                                .as(order + " " + text + " limit " + limit)
                                .containsExactlyElementsOf(want);
                    }
                }
            }
        }
    }

    @Test
    void aFullFirstPageFromTheNewestShardLeavesTheOlderOnesUnsearched() throws Exception {
        write();
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-7d&to=now&limit=20&q=tick", ACME_KEY));
            assertThat(j.get("hits")).hasSize(20);
            assertThat(j.get("shards").get("searched").asInt()).isEqualTo(1);
            assertThat(j.get("shards").get("not_needed").asInt()).isEqualTo(DAYS - 1);
            assertThat(j.get("shards").get("skipped")).isEmpty();
            assertThat(j.get("partial_reasons")).isEmpty();
            // the shards the page did not need are counted: the total is exact, the histogram's
            assertThat(j.get("total").get("value").asLong()).isEqualTo(60L * DAYS);
            assertThat(j.get("total").get("relation").asText()).isEqualTo("eq");
            JsonNode histogram = json(get(q, "/api/v1/histogram?from=now-7d&to=now&q=tick", ACME_KEY));
            assertThat(histogram.get("total").asLong()).isEqualTo(60L * DAYS);
            JsonNode all = json(get(q, "/api/v1/search?from=now-7d&to=now&limit=1000&q=tick", ACME_KEY));
            assertThat(all.get("shards").get("searched").asInt()).isEqualTo(DAYS);
            assertThat(all.get("shards").get("not_needed").asInt()).isZero();
            assertThat(all.get("total").get("value").asLong()).isEqualTo(60L * DAYS);
            assertThat(all.get("total").get("relation").asText()).isEqualTo("eq");
        }
    }

    @Test
    void withoutACountBudgetTheTotalOfAnEarlyStopIsALowerBound() throws Exception {
        write();
        try (QueryProcess q =
                QueryFixture.start(data, "limits:\n  exact_total_budget: 0s\n", InstantSource.fixed(NOW))) {
            JsonNode j = json(get(q, "/api/v1/search?from=now-7d&to=now&limit=20&q=tick", ACME_KEY));
            assertThat(j.get("shards").get("not_needed").asInt()).isEqualTo(DAYS - 1);
            assertThat(j.get("total").get("value").asLong()).isEqualTo(60);
            assertThat(j.get("total").get("relation").asText()).isEqualTo("gte");
        }
    }
}
