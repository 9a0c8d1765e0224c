package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.store.write.ShardStore.Rejection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Sends documents encoded ahead ({@link BulkItems}) as {@code _bulk} bodies, up to {@code bulk_concurrency} bodies in
 * flight. The calling thread only sends and waits: the documents were encoded before the call (for the indexer, on its
 * decode thread while the previous poll was being written), so the cluster does not wait for the indexer to build them.
 * Memory: the call's encoded items, plus the bodies of items sent again.
 *
 * <p>Two bodies in flight together never hold the same document (index and id): a body that would is sent only after
 * the bodies in flight are answered, so a record written twice in one call ends as its later write, as one body in
 * order would leave it. Items refused for load (429, 503) are sent again, only those, in their order, after a growing
 * pause ({@link OpenSearchStore#RETRY_PAUSES}); still refused after that, the call throws. An answer without errors is
 * not parsed past its {@code errors} flag ({@link BulkAnswers}). The sending threads are this object's, named
 * {@code opensearch-bulk-N}, and end with {@link #close}.
 */
final class BulkSender implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where a body goes: {@code POST /_bulk} of {@code body[offset, offset + length)} (a fake in unit tests). */
    @FunctionalInterface
    interface Post {
        OpenSearchClient.Response bulk(byte[] body, int offset, int length) throws IOException;
    }

    private final Post post;
    private final int concurrency;
    private final ExecutorService pool;

    BulkSender(Post post, int concurrency) {
        this.post = post;
        this.concurrency = concurrency;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "opensearch-bulk-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** What one body's answer says: positions (in the call's items) refused for themselves, and for load. */
    private record Answer(List<Rejection> rejected, List<Integer> again) {}

    /** A body on its way: its answer, and the documents it holds. */
    private record InFlight(Future<Answer> answer, Set<String> documents) {}

    /**
     * Sends {@code items} (encoded ahead, in bodies), each known by {@code document} (its index and id, by position);
     * returns those refused for themselves, by their position in {@code items}.
     */
    List<Rejection> send(BulkItems items, IntFunction<String> document, String what) throws IOException {
        List<Rejection> rejected = new ArrayList<>();
        List<BulkItems.Body> bodies = items.bodies();
        for (int attempt = 0; !bodies.isEmpty(); attempt++) {
            if (attempt > 0) {
                int left = bodies.stream().mapToInt(b -> b.items().length).sum();
                if (attempt > OpenSearchStore.RETRY_PAUSES.size()) {
                    throw new IOException("OpenSearch refused " + left + " documents of " + what
                            + " for load (429/503) " + attempt + " times; the indexer retries from its last commit");
                }
                pause(OpenSearchStore.RETRY_PAUSES.get(attempt - 1));
            }
            List<Integer> again = new ArrayList<>();
            List<InFlight> inFlight = new ArrayList<>();
            try {
                for (BulkItems.Body body : bodies) {
                    // one body in flight is always answered before the next is sent: no overlap to look for
                    Set<String> documents = concurrency > 1 ? documents(body, document) : null;
                    if (inFlight.size() == concurrency || (documents != null && sharesDocument(inFlight, documents))) {
                        drain(inFlight, rejected, again);
                    }
                    inFlight.add(new InFlight(pool.submit(() -> answer(body, what)), documents));
                }
                drain(inFlight, rejected, again);
            } finally {
                for (InFlight f : inFlight) { // a failure: no body outlives the call
                    f.answer().cancel(true);
                }
            }
            Collections.sort(again); // sent again in the order first given
            bodies = items.bodies(again);
        }
        rejected.sort(Comparator.comparingInt(Rejection::index));
        return rejected;
    }

    private static Set<String> documents(BulkItems.Body body, IntFunction<String> document) {
        Set<String> documents = new HashSet<>();
        for (int item : body.items()) {
            documents.add(document.apply(item));
        }
        return documents;
    }

    private static boolean sharesDocument(List<InFlight> inFlight, Set<String> documents) {
        for (InFlight f : inFlight) {
            for (String d : documents) {
                if (f.documents().contains(d)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Waits for every body in flight, in the order sent, and takes their answers; the first failure is thrown. */
    private static void drain(List<InFlight> inFlight, List<Rejection> rejected, List<Integer> again)
            throws IOException {
        IOException failed = null;
        for (InFlight f : inFlight) {
            try {
                collect(f.answer().get(), rejected, again);
            } catch (ExecutionException e) {
                if (failed == null) {
                    failed = e.getCause() instanceof IOException io
                            ? io
                            : new IOException("a bulk failed: " + e.getCause(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a bulk's answer", e);
            }
        }
        inFlight.clear();
        if (failed != null) {
            throw failed;
        }
    }

    private static void collect(Answer a, List<Rejection> rejected, List<Integer> again) {
        rejected.addAll(a.rejected());
        again.addAll(a.again());
    }

    private Answer answer(BulkItems.Body body, String what) throws IOException {
        int[] sent = body.items();
        OpenSearchClient.Response r = post.bulk(body.bytes(), 0, body.length());
        if (r.status() == 429 || r.status() == 503) {
            List<Integer> all = new ArrayList<>(sent.length);
            for (int item : sent) {
                all.add(item);
            }
            return new Answer(List.of(), all);
        }
        OpenSearchStore.expect(r, "a bulk of " + sent.length + " documents into " + what);
        if (!BulkAnswers.anyErrors(r.body())) {
            return new Answer(List.of(), List.of());
        }
        JsonNode answer = JSON.readTree(r.body());
        List<Rejection> rejected = new ArrayList<>();
        List<Integer> again = new ArrayList<>();
        JsonNode items = answer.path("items");
        for (int i = 0; i < sent.length; i++) {
            JsonNode item = items.path(i).path("index");
            int status = item.path("status").asInt(500);
            if (status == 429 || status == 503) {
                again.add(sent[i]);
            } else if (status >= 300) {
                JsonNode e = item.path("error");
                rejected.add(new Rejection(
                        sent[i],
                        "OpenSearch refused the document (" + status + " "
                                + e.path("type").asText() + "): "
                                + e.path("reason").asText()));
            }
        }
        return new Answer(rejected, again);
    }

    private static void pause(Duration d) throws IOException {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while backing off from OpenSearch", e);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
