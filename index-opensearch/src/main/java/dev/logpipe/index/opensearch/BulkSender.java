package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.store.write.ShardStore.Rejection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Sends documents as {@code _bulk} bodies of at most {@code bulk_bytes}, up to {@code bulk_concurrency} bodies in flight
 * while the calling thread encodes the next, so the cluster is not idle while the indexer builds documents (sent and
 * built in turn, the node waited for each next body and the indexer for each answer). Memory: at most
 * {@code bulk_concurrency + 1} bodies at once.
 *
 * <p>Two bodies in flight together never hold the same document (index and id): a body that would is sent only after
 * the bodies in flight are answered, so a record written twice in one call ends as its later write, as one body in
 * order would leave it. Items refused for load (429, 503) are sent again, only those, after a growing pause
 * ({@link OpenSearchStore#RETRY_PAUSES}); still refused after that, the call throws. The sending threads are this
 * object's, named {@code opensearch-bulk-N}, and end with {@link #close}.
 */
final class BulkSender implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where a body goes: {@code POST /_bulk} on the cluster (a fake in unit tests). */
    @FunctionalInterface
    interface Post {
        OpenSearchClient.Response bulk(byte[] body) throws IOException;
    }

    private final Post post;
    private final long bulkBytes;
    private final int concurrency;
    private final ExecutorService pool;

    BulkSender(Post post, long bulkBytes, int concurrency) {
        this.post = post;
        this.bulkBytes = bulkBytes;
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
     * Sends {@code items}, encoded by {@code encode}, each known by {@code document} (its index and id); returns those
     * refused for themselves, by their position in {@code items}.
     */
    <T> List<Rejection> send(
            List<T> items, BiConsumer<ByteArrayOutputStream, T> encode, Function<T, String> document, String what)
            throws IOException {
        List<Rejection> rejected = new ArrayList<>();
        List<Integer> pending = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            pending.add(i);
        }
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                if (attempt > OpenSearchStore.RETRY_PAUSES.size()) {
                    throw new IOException("OpenSearch refused " + pending.size() + " documents of " + what
                            + " for load (429/503) " + attempt + " times; the indexer retries from its last commit");
                }
                pause(OpenSearchStore.RETRY_PAUSES.get(attempt - 1));
            }
            List<Integer> again = new ArrayList<>();
            List<InFlight> inFlight = new ArrayList<>();
            try {
                int from = 0;
                while (from < pending.size()) {
                    ByteArrayOutputStream body = new ByteArrayOutputStream();
                    List<Integer> sent = new ArrayList<>();
                    // one body in flight is always answered before the next is sent: no overlap to look for
                    Set<String> documents = concurrency > 1 ? new HashSet<>() : null;
                    int to = from;
                    try {
                        while (to < pending.size() && (to == from || body.size() < bulkBytes)) {
                            T item = items.get(pending.get(to));
                            encode.accept(body, item);
                            if (documents != null) {
                                documents.add(document.apply(item));
                            }
                            sent.add(pending.get(to++));
                        }
                    } catch (UncheckedIOException e) {
                        throw e.getCause();
                    }
                    byte[] bytes = body.toByteArray();
                    body = null;
                    if (inFlight.size() == concurrency || (documents != null && sharesDocument(inFlight, documents))) {
                        drain(inFlight, rejected, again);
                    }
                    inFlight.add(new InFlight(pool.submit(() -> answer(bytes, sent, what)), documents));
                    from = to;
                }
                drain(inFlight, rejected, again);
            } finally {
                for (InFlight f : inFlight) { // a failure: no body outlives the call
                    f.answer().cancel(true);
                }
            }
            pending = again;
        }
        return rejected;
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

    private Answer answer(byte[] body, List<Integer> sent, String what) throws IOException {
        OpenSearchClient.Response r = post.bulk(body);
        if (r.status() == 429 || r.status() == 503) {
            return new Answer(List.of(), sent);
        }
        OpenSearchStore.expect(r, "a bulk of " + sent.size() + " documents into " + what);
        JsonNode answer = JSON.readTree(r.body());
        if (!answer.path("errors").asBoolean(false)) {
            return new Answer(List.of(), List.of());
        }
        List<Rejection> rejected = new ArrayList<>();
        List<Integer> again = new ArrayList<>();
        JsonNode items = answer.path("items");
        for (int i = 0; i < sent.size(); i++) {
            JsonNode item = items.path(i).path("index");
            int status = item.path("status").asInt(500);
            if (status == 429 || status == 503) {
                again.add(sent.get(i));
            } else if (status >= 300) {
                JsonNode e = item.path("error");
                rejected.add(new Rejection(
                        sent.get(i),
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
