package dev.logpipe.query.internal.tail;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.SearchPage;
import dev.logpipe.index.store.ShardQuery;
import dev.logpipe.index.store.ShardSearcher;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.http.Answer;
import dev.logpipe.query.internal.search.Merge;
import java.io.Closeable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/tail?q=}: live tail over Server-Sent Events. Every {@code limits.tail_poll} it searches the
 * tenant's shards of today and yesterday for matching records observed since the tail began (minus a minute of
 * indexing lag) and sends each record it has not sent before as {@code event: record}, newest last; a comment line
 * every 15 s keeps proxies from closing it. At most {@code limits.max_tails} tails run at once (429 beyond). Holds
 * one server thread per tail.
 */
public final class Tails implements Closeable {
    static final long LAG_MILLIS = 60_000;
    static final int PER_POLL = 500;
    private static final int SEEN = 100_000;
    private final Env env;
    private final Semaphore slots;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger active = new AtomicInteger();

    public Tails(Env env, int maxTails) {
        this.env = env;
        this.slots = new Semaphore(maxTails);
    }

    public int active() {
        return active.get();
    }

    public void handle(Call call, Request request, Response response, Callback callback, Runnable started) {
        String q = Scope.query(call.params());
        if (closed.get() || !slots.tryAcquire()) {
            throw new Answer.Refusal(429, "tail_cap", "too many live tails are open; retry later");
        }
        active.incrementAndGet();
        call.audit().put("query", q);
        call.audit().put("outcome", "tail_started");
        call.audit().put("status", 200);
        env.metrics().request("tail", 200, 0);
        started.run();
        try {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            write(response, ": tail of " + call.tenant() + "\n\n");
            run(call, q, response);
            callback.succeeded();
        } catch (Exception e) { // the client went away, or the service stops
            callback.failed(e);
        } finally {
            active.decrementAndGet();
            slots.release();
        }
    }

    private void run(Call call, String q, Response response) throws Exception {
        long began = env.clock().millis();
        Map<String, Boolean> seen = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) {
                return size() > SEEN;
            }
        };
        boolean first = true;
        long lastWrite = System.nanoTime();
        while (!closed.get()) {
            List<SearchPage.Hit> fresh = poll(call.tenant(), q, began - LAG_MILLIS);
            StringBuilder out = new StringBuilder();
            for (int i = fresh.size() - 1; i >= 0; i--) {
                SearchPage.Hit h = fresh.get(i);
                if (seen.put(h.recordId(), Boolean.TRUE) == null && !first) {
                    out.append("event: record\nid: ")
                            .append(h.recordId().replaceAll("[\\r\\n]", ""))
                            .append("\ndata: ")
                            .append(h.source())
                            .append("\n\n");
                }
            }
            first = false;
            if (out.length() > 0) {
                write(response, out.toString());
                lastWrite = System.nanoTime();
            } else if (System.nanoTime() - lastWrite > 15_000_000_000L) {
                write(response, ": keep-alive\n\n");
                lastWrite = System.nanoTime();
            }
            LockSupport.parkNanos(env.config().limits().tailPoll().toNanos());
        }
    }

    /** Matching records with observed_time at or after {@code since}, newest first (the records it has not sent yet are among them). */
    private List<SearchPage.Hit> poll(String tenant, String q, long since) throws Exception {
        LocalDate today = LocalDate.ofInstant(env.clock().instant(), ZoneOffset.UTC);
        String query = "(" + (q.isBlank() ? "*:*" : q) + ") AND " + Fields.OBSERVED_TIME + ":[" + since + " TO *]";
        ShardQuery sq = ShardQuery.of(tenant, query, Long.MIN_VALUE, Long.MAX_VALUE);
        List<List<SearchPage.Hit>> pages = new ArrayList<>();
        for (ShardId id : env.source().shards(ShardKind.RECORDS, tenant)) {
            if (id.day().isBefore(today.minusDays(1))) {
                continue;
            }
            Optional<ShardSearcher> s = env.source().open(id);
            if (s.isEmpty()) {
                continue;
            }
            try (ShardSearcher searcher = s.get()) {
                pages.add(searcher.search(
                                sq,
                                ShardSearcher.Order.NEWEST_FIRST,
                                null,
                                PER_POLL,
                                System.nanoTime()
                                        + env.config().limits().queryTimeout().toNanos())
                        .hits());
            }
        }
        return Merge.merge(pages, ShardSearcher.Order.NEWEST_FIRST, PER_POLL);
    }

    private static void write(Response response, String text) throws Exception {
        try (Blocker.Callback cb = Blocker.callback()) {
            response.write(false, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), cb);
            cb.block();
        }
    }

    /** Ends every tail at its next poll. */
    @Override
    public void close() {
        closed.set(true);
    }
}
