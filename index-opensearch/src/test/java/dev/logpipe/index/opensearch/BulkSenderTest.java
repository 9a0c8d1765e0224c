package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.logpipe.index.store.write.ShardStore.Rejection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bodies in flight together (the cluster writes one while the indexer builds the next) against a fake {@code _bulk}
 * that holds each body until the next one (or the next two) arrive, or 300 ms pass, so bodies the sender lets overlap
 * do.
 */
class BulkSenderTest {
    /** Each item is one document id; its line is about 40 bytes, so a 64 KiB body holds ~1,600. */
    private static final long BODY_BYTES = 64 * 1024;

    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger bodies = new AtomicInteger();
    private final Map<String, Integer> posts = new ConcurrentHashMap<>();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final AtomicInteger atOnce = new AtomicInteger();
    private final Object arrivals = new Object();
    /** Bodies that have arrived (guarded by {@link #arrivals}). */
    private int arrived;
    /** A body is held until this many bodies, itself included, have arrived from it on (or 300 ms pass). */
    private int holdFor = 2;

    private BulkSender sender;

    @AfterEach
    void close() {
        if (sender != null) {
            sender.close();
        }
    }

    /** The fake cluster: refuses the ids in {@code refused} (400) and, once each, answers 429 to those in {@code busy}. */
    private BulkSender.Post cluster(Set<String> refused, Set<String> busy) {
        Set<String> busyOnce = ConcurrentHashMap.newKeySet();
        busyOnce.addAll(busy);
        return (body, offset, length) -> {
            List<String> ids = ids(body, offset, length);
            bodies.incrementAndGet();
            mostAtOnce.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
            ids.forEach(id -> posts.merge(id, 1, Integer::sum));
            Set<String> distinct = new java.util.LinkedHashSet<>(ids); // twice in one body is in order anyway
            for (String id : distinct) {
                if (!inFlight.add(id)) {
                    overlaps.add(id);
                }
            }
            hold();
            StringBuilder items = new StringBuilder();
            boolean errors = false;
            for (String id : ids) {
                items.append(items.length() == 0 ? "" : ",");
                if (refused.contains(id)) {
                    errors = true;
                    items.append("{\"index\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\","
                            + "\"reason\":\"no\"}}}");
                } else if (busyOnce.remove(id)) {
                    errors = true;
                    items.append("{\"index\":{\"status\":429}}");
                } else {
                    items.append("{\"index\":{\"status\":201}}");
                }
            }
            distinct.forEach(inFlight::remove);
            atOnce.decrementAndGet();
            String answer = "{\"errors\":" + errors + ",\"items\":[" + items + "]}";
            return new OpenSearchClient.Response(200, answer.getBytes(StandardCharsets.UTF_8));
        };
    }

    /** Holds the arriving body until {@link #holdFor} bodies counted from it have arrived, or 300 ms pass. */
    private void hold() {
        synchronized (arrivals) {
            int mine = ++arrived;
            arrivals.notifyAll();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            try {
                while (arrived < mine + holdFor - 1) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(arrivals, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static List<String> ids(byte[] body, int offset, int length) {
        List<String> ids = new ArrayList<>();
        for (String line : new String(body, offset, length, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("{\"index\"")) {
                ids.add(line.substring(line.indexOf("\"_id\":\"") + 7, line.lastIndexOf('"')));
            }
        }
        return ids;
    }

    private static void encode(JsonGenerator g, String id) throws IOException {
        g.writeRaw("{\"index\":{\"_id\":\"" + id + "\"}\n{}\n");
    }

    private List<Rejection> send(List<String> items) throws IOException {
        return sender.send(BulkItems.encode(items, BulkSenderTest::encode, BODY_BYTES, id -> 40), items::get, "test");
    }

    private static List<String> items(int n) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add("doc-" + i);
        }
        return items;
    }

    @Test
    void bodiesGoInFlightTogetherUpToTheConcurrencyAndRefusalsKeepTheirPositions() throws Exception {
        holdFor = 3;
        sender = new BulkSender(cluster(Set.of("doc-5", "doc-9000"), Set.of()), 3);
        List<Rejection> rejected = send(items(20_000));
        assertThat(bodies.get()).isGreaterThan(6);
        assertThat(mostAtOnce.get()).as("bodies in flight at once").isEqualTo(3);
        assertThat(rejected).extracting(Rejection::index).containsExactly(5, 9000);
        assertThat(rejected.get(0).reason()).contains("OpenSearch refused the document (400 mapper_parsing_exception)");
    }

    @Test
    void aDocumentIsNeverInTwoBodiesInFlightSoItsLaterWriteIsTheLastApplied() throws Exception {
        sender = new BulkSender(cluster(Set.of(), Set.of()), 4);
        List<String> items = items(20_000);
        for (int i = 0; i < 3_000; i += 500) {
            items.add(i + 3_000, items.get(i)); // written again, a body or two later
        }
        assertThat(send(items)).isEmpty();
        assertThat(overlaps).as("documents in two bodies in flight at once").isEmpty();
        assertThat(mostAtOnce.get())
                .as("bodies without a shared document still overlap")
                .isGreaterThan(1);
    }

    @Test
    void itemsRefusedForLoadAreSentAgainAloneAndOneAtATimeStaysInOrder() throws Exception {
        sender = new BulkSender(cluster(Set.of(), Set.of("doc-3", "doc-4000")), 1);
        assertThat(send(items(5_000))).isEmpty();
        assertThat(mostAtOnce.get()).isEqualTo(1);
        assertThat(posts).containsEntry("doc-3", 2).containsEntry("doc-4000", 2).containsEntry("doc-5", 1);
        assertThat(posts).hasSize(5_000);
    }

    @Test
    void aFailedBodyFailsTheCallNamingWhatItWasWriting() {
        sender = new BulkSender(
                (body, offset, length) ->
                        new OpenSearchClient.Response(500, "{\"error\":\"boom\"}".getBytes(StandardCharsets.UTF_8)),
                2);
        assertThatThrownBy(() -> send(items(5_000)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("OpenSearch answered 500 to a bulk of")
                .hasMessageContaining("into test");
    }
}
