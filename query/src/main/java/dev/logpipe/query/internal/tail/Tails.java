package dev.logpipe.query.internal.tail;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.ShardQuery;
import dev.logpipe.index.store.ShardSearcher;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.http.Answer;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.search.SourceReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
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
 * {@code GET /api/v1/tail?q=}: live tail over Server-Sent Events (docs/query.md#get-apiv1tailq). Every
 * {@code limits.tail_poll} it looks at the keys of up to {@link #SCAN} of the newest matching records of the
 * tenant's shards of today and yesterday observed within {@code limits.tail_lag}, and sends those it has not sent
 * yet, oldest observed first, at most {@link #PER_POLL} records and {@code limits.max_answer_bytes} of them per poll
 * (the rest at the next polls). A record that leaves that window unsent is counted, and the count is sent as an
 * {@code event: skipped}: a tail never drops a record silently. At most {@code limits.max_tails} tails run at once,
 * {@code limits.max_tails_per_tenant} of one tenant (429 beyond); a tail's slot is given back as soon as its client
 * is gone (a write fails, or Jetty reports the connection failed; a comment is written every second of silence so a
 * closed connection is noticed). Holds one server thread per tail.
 */
public final class Tails implements Closeable {
    static final int PAGE = 1000;
    static final int SCAN = 20_000;
    static final int PER_POLL = 1000;
    private static final int SEEN = 100_000;
    private static final long HEARTBEAT_NANOS = 1_000_000_000L;
    private final Env env;
    private final AnswerMemory memory;
    private final Semaphore slots;
    private final int perTenant;
    private final Map<String, Integer> byTenant = new HashMap<>(); // guarded by itself
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger active = new AtomicInteger();

    public Tails(Env env, AnswerMemory memory) {
        this.env = env;
        this.memory = memory;
        this.slots = new Semaphore(env.config().limits().maxTails());
        this.perTenant = env.config().limits().maxTailsPerTenant();
    }

    public int active() {
        return active.get();
    }

    public void handle(Call call, Request request, Response response, Callback callback, Runnable started) {
        String q = Scope.query(call.params());
        String tenant = call.tenant();
        if (closed.get()) {
            throw new Answer.Refusal(429, "tail_cap", "the query service is stopping; retry later");
        }
        synchronized (byTenant) {
            if (byTenant.getOrDefault(tenant, 0) >= perTenant) {
                throw new Answer.Refusal(
                        429,
                        "tail_tenant_cap",
                        "tenant " + tenant + " has " + perTenant + " live tails open (limits.max_tails_per_tenant); "
                                + "close one or retry later");
            }
            if (!slots.tryAcquire()) {
                throw new Answer.Refusal(
                        429, "tail_cap", "too many live tails are open (limits.max_tails); retry later");
            }
            byTenant.merge(tenant, 1, Integer::sum);
        }
        active.incrementAndGet();
        AtomicBoolean gone = new AtomicBoolean();
        Thread self = Thread.currentThread();
        request.addFailureListener(
                x -> { // the client went away: stop at once, not at the next write
                    gone.set(true);
                    LockSupport.unpark(self);
                });
        call.audit().put("query", q);
        call.audit().put("outcome", "tail_started");
        call.audit().put("status", 200);
        env.metrics().request("tail", 200, 0);
        started.run();
        try {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            write(response, ": tail of " + tenant + "\n\n");
            run(call, q, response, gone);
            callback.succeeded();
        } catch (Exception e) { // the client went away, or the service stops
            callback.failed(e);
        } finally {
            active.decrementAndGet();
            synchronized (byTenant) {
                byTenant.computeIfPresent(tenant, (k, n) -> n == 1 ? null : n - 1);
                slots.release();
            }
        }
    }

    /** One not yet sent: where to read it, and when it was observed. */
    private record Unsent(ShardSearcher searcher, ShardSearcher.LongKey key) {
        long observed() {
            return key.value();
        }

        String id() {
            return key.key().recordId().utf8ToString();
        }
    }

    /** Where a tail is: the last record sent in (observed_time, record_id) order, and what it sent in its window. */
    private static final class State {
        long cursorTime;
        String cursorId;
        long floor;
        final NavigableMap<Long, Integer> sent = new TreeMap<>(); // observed -> records sent, in the window
        final Map<String, Long> seen = new LinkedHashMap<>(1024, 0.75f, false) { // record id -> observed
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Long> e) {
                        return size() > SEEN;
                    }
                };

        long sentBetween(long from, long to) {
            long n = 0;
            for (int c : sent.subMap(from, true, to, false).values()) {
                n += c;
            }
            return n;
        }
    }

    private void run(Call call, String q, Response response, AtomicBoolean gone) throws Exception {
        long lag = env.config().limits().tailLag().toMillis();
        long began = env.clock().millis();
        State st = new State();
        st.cursorTime = began; // records observed before the tail began are not sent
        st.cursorId = "";
        st.floor = began - lag; // records observed before it are out of the window
        long lastWrite = System.nanoTime();
        while (!closed.get() && !gone.get()) {
            StringBuilder out = new StringBuilder();
            long now = env.clock().millis();
            try (Poll p = new Poll(call.tenant(), q)) {
                send(call.tenant(), p.unsent(st, began), st, out);
                long next = now - lag;
                if (next > st.floor) { // records observed before next can no longer appear: count the unsent ones
                    long from = Math.max(st.floor, began);
                    if (next > from) {
                        long missed = p.count(from, next) - st.sentBetween(from, next);
                        if (missed > 0) {
                            env.metrics().tailSkipped(missed);
                            out.append("event: skipped\ndata: {\"skipped\":")
                                    .append(missed)
                                    .append(",\"observed_from\":\"")
                                    .append(Instant.ofEpochMilli(from))
                                    .append("\",\"observed_to\":\"")
                                    .append(Instant.ofEpochMilli(next))
                                    .append("\"}\n\n");
                        }
                    }
                    st.seen.values().removeIf(o -> o < next);
                    st.sent.headMap(next).clear();
                    st.floor = next;
                }
            }
            if (out.length() > 0) {
                write(response, out.toString());
                lastWrite = System.nanoTime();
            } else if (System.nanoTime() - lastWrite > HEARTBEAT_NANOS) {
                write(response, ": keep-alive\n\n"); // fails once the client is gone: the slot is given back
                lastWrite = System.nanoTime();
            }
            LockSupport.parkNanos(env.config().limits().tailPoll().toNanos());
        }
    }

    /** Reads and appends up to a poll's worth of the unsent records, in order, and marks them sent. */
    private void send(String tenant, List<Unsent> unsent, State st, StringBuilder out) throws IOException {
        if (unsent.isEmpty()) {
            return;
        }
        unsent.sort(Comparator.comparingLong(Unsent::observed)
                .thenComparing(u -> u.key().key().recordId()));
        List<Unsent> batch = unsent.subList(0, Math.min(PER_POLL, unsent.size()));
        List<SourceReader.Ref> refs = new ArrayList<>(batch.size());
        batch.forEach(
                u -> refs.add(new SourceReader.Ref(u.searcher(), u.key().key().doc())));
        long maxBytes = env.config().limits().maxAnswerBytes();
        long deadline = System.nanoTime() + env.config().limits().queryTimeout().toNanos();
        try (AnswerMemory.Lease lease = memory.lease(tenant)) {
            try {
                lease.reserve(maxBytes, deadline);
            } catch (Answer.Refusal r) {
                return; // the memory is busy: these records wait for the next poll
            }
            SourceReader.Read read =
                    SourceReader.read(env.fanOut(), refs, env.config().limits().shardConcurrency(), maxBytes, deadline);
            for (int i = 0; i < read.sources().length; i++) {
                Unsent u = batch.get(i);
                String id = u.id();
                st.seen.put(id, u.observed());
                st.sent.merge(u.observed(), 1, Integer::sum);
                if (u.observed() > st.cursorTime || (u.observed() == st.cursorTime && id.compareTo(st.cursorId) > 0)) {
                    st.cursorTime = u.observed();
                    st.cursorId = id;
                }
                out.append("event: record\nid: ")
                        .append(id.replaceAll("[\\r\\n]", ""))
                        .append("\ndata: ")
                        .append(read.sources()[i])
                        .append("\n\n");
            }
        }
    }

    /** The searchers of one poll (today's and yesterday's shards), closed with it. */
    private final class Poll implements AutoCloseable {
        private final List<ShardSearcher> searchers = new ArrayList<>();
        private final String tenant;
        private final String q;
        private final long deadline =
                System.nanoTime() + env.config().limits().queryTimeout().toNanos();

        Poll(String tenant, String q) throws IOException {
            this.tenant = tenant;
            this.q = q;
            LocalDate today = LocalDate.ofInstant(env.clock().instant(), ZoneOffset.UTC);
            for (ShardId id : env.source().shards(ShardKind.RECORDS, tenant)) {
                if (!id.day().isBefore(today.minusDays(1))) {
                    Optional<ShardSearcher> s = env.source().open(id);
                    s.ifPresent(searchers::add);
                }
            }
        }

        private ShardQuery query(long from, long to) {
            String text = "(" + (q.isBlank() ? "*:*" : q) + ") AND " + Fields.OBSERVED_TIME + ":[" + from + " TO "
                    + (to == Long.MAX_VALUE ? "*" : Long.toString(to - 1)) + "]";
            return ShardQuery.of(tenant, text, Long.MIN_VALUE, Long.MAX_VALUE);
        }

        /**
         * Up to {@link #PER_POLL} records not sent yet: those after the cursor in (observed_time, record_id) order,
         * and, when the window before the cursor holds more matches than were sent there (records that became
         * searchable late), those too (at most {@link #SCAN} keys looked at for them).
         */
        List<Unsent> unsent(State st, long began) throws IOException {
            List<Unsent> out = new ArrayList<>();
            ShardQuery fresh = query(st.floor, Long.MAX_VALUE);
            for (ShardSearcher s : searchers) {
                for (ShardSearcher.LongKey k :
                        s.keysByTime(Fields.OBSERVED_TIME, fresh, st.cursorTime, st.cursorId, PER_POLL, deadline)) {
                    if (!st.seen.containsKey(k.key().recordId().utf8ToString())) {
                        out.add(new Unsent(s, k));
                    }
                }
            }
            long from = Math.max(st.floor, began);
            if (st.cursorTime > from && count(from, st.cursorTime) > st.sentBetween(from, st.cursorTime)) {
                ShardQuery late = query(from, st.cursorTime);
                int looked = 0;
                for (ShardSearcher s : searchers) {
                    Long afterTime = null;
                    String afterId = null;
                    while (looked < SCAN && out.size() < 2 * PER_POLL) {
                        List<ShardSearcher.LongKey> keys = s.keysByTime(
                                Fields.OBSERVED_TIME, late, afterTime == null ? 0 : afterTime, afterId, PAGE, deadline);
                        looked += keys.size();
                        for (ShardSearcher.LongKey k : keys) {
                            if (!st.seen.containsKey(k.key().recordId().utf8ToString())) {
                                out.add(new Unsent(s, k));
                            }
                        }
                        if (keys.size() < PAGE) {
                            break;
                        }
                        ShardSearcher.LongKey last = keys.get(keys.size() - 1);
                        afterTime = last.value();
                        afterId = last.key().recordId().utf8ToString();
                    }
                }
            }
            return out;
        }

        /** Matching records observed in [from, to). */
        long count(long from, long to) throws IOException {
            long n = 0;
            for (ShardSearcher s : searchers) {
                n += s.count(query(from, to), deadline);
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            for (ShardSearcher s : searchers) {
                s.close();
            }
        }
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
