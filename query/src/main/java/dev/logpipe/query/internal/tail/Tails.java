package dev.logpipe.query.internal.tail;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.search.SourceReader;
import java.io.Closeable;
import java.io.IOException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/tail?q=}: live tail over Server-Sent Events (docs/query.md#get-apiv1tailq). Every
 * {@code limits.tail_poll} it looks at the keys of up to {@link #SCAN} of the newest matching records of the
 * tenant's shards of today and yesterday observed within {@code limits.tail_lag}, and sends those it has not sent
 * yet, oldest observed first, at most {@link #PER_POLL} records and {@code limits.max_answer_bytes} of them per poll
 * (the rest at the next polls). A record that leaves that window unsent is counted, and the count is sent as an
 * {@code event: skipped}: a tail never drops a record silently. What a tail remembers of its window is bounded in
 * bytes ({@link #WINDOW_BYTES}; when full, the window's start moves up the same way, but never past the cursor's
 * millisecond: when more records of that millisecond were sent than the window holds, it keeps their number only,
 * {@link SentWindow#collapse}). {@code q} is parsed once per
 * tail (its text never changes; the window is a structured range beside it), and a poll's answer is held under the
 * tenant's answer memory until it is written. At most {@code limits.max_tails} tails run at once,
 * {@code limits.max_tails_per_tenant} of one tenant (429 beyond); a tail's slot is given back as soon as its client
 * is gone (a write fails, or Jetty reports the connection failed; a comment is written every second of silence so a
 * closed connection is noticed), and when its setup throws. Holds one server thread per tail.
 */
public final class Tails implements Closeable {
    static final int PAGE = 1000;
    static final int SCAN = 20_000;
    static final int PER_POLL = 1000;
    /**
     * What a tail may hold of the records it sent within its window: 131,072 records of 16 bytes, more than a tail
     * sends within the default {@code tail_lag} of 1 minute at its most at the default poll (2,000 a second).
     */
    static final long WINDOW_BYTES = 2L * 1024 * 1024;

    private static final long HEARTBEAT_NANOS = 1_000_000_000L;
    private final Env env;
    private final AnswerMemory memory;
    private final long windowBytes;
    private final Semaphore slots;
    private final int perTenant;
    private final Map<String, Integer> byTenant = new HashMap<>(); // guarded by itself
    private final Set<SentWindow> windows = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger active = new AtomicInteger();

    public Tails(Env env, AnswerMemory memory) {
        this(env, memory, WINDOW_BYTES);
    }

    Tails(Env env, AnswerMemory memory, long windowBytes) {
        this.env = env;
        this.memory = memory;
        this.windowBytes = windowBytes;
        this.slots = new Semaphore(env.config().limits().maxTails());
        this.perTenant = env.config().limits().maxTailsPerTenant();
    }

    public int active() {
        return active.get();
    }

    /** Bytes the windows of the open tails take now, each at most its budget. */
    long windowBytes() {
        long n = 0;
        for (SentWindow w : windows) {
            n += w.bytes();
        }
        return n;
    }

    /**
     * Streams the tail until its client is gone or the service stops. A refusal (caps) is thrown before anything is
     * taken; what its setup throws (before the stream starts) is thrown too, with the slot given back.
     */
    public void handle(Call call, Request request, Response response, Callback callback, Runnable started) {
        ParsedQuery q = Scope.query(call.params()); // parsed once, for every poll of the tail
        String tenant = call.tenant();
        ShardKind kind = switch (call.params().get("kind", "records")) {
            case "records" -> ShardKind.RECORDS;
            case "dead-letters" -> ShardKind.DEAD_LETTERS;
            default ->
                throw dev.logpipe.query.internal.http.Params.bad(
                        "kind: records or dead-letters, was \"" + call.params().get("kind") + "\"");
        };
        try (Slot slot = admit(tenant)) {
            AtomicBoolean gone = new AtomicBoolean();
            Thread self = Thread.currentThread();
            request.addFailureListener(
                    x -> { // the client went away: stop at once, not at the next write
                        gone.set(true);
                        LockSupport.unpark(self);
                    });
            call.audit().put("query", q.text());
            call.audit().put("kind", kind.name().toLowerCase(Locale.ROOT));
            call.audit().put("outcome", "tail_started");
            call.audit().put("status", 200);
            env.metrics().request("tail", 200, 0);
            started.run();
            // before the client can see the stream begin: a record it writes after seeing the banner is sent
            long began = env.clock().millis();
            try {
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
                response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
                EventWriter out = new EventWriter(response);
                out.text(": tail of " + tenant + "\n\n");
                out.flush();
                follow(tenant, kind, q, out, gone, began);
                callback.succeeded();
            } catch (Exception e) { // the client went away, or the service stops
                callback.failed(e);
            }
        }
    }

    /**
     * A tail's place among the open ones, taken by {@link #admit} and given back by {@link #close} (once; again is
     * harmless).
     */
    public final class Slot implements AutoCloseable {
        private final String tenant;
        private final AtomicBoolean released = new AtomicBoolean();

        private Slot(String tenant) {
            this.tenant = tenant;
        }

        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                synchronized (byTenant) {
                    byTenant.computeIfPresent(tenant, (k, n) -> n == 1 ? null : n - 1);
                    slots.release();
                }
            }
        }
    }

    /**
     * Takes a slot for a tail of {@code tenant}.
     *
     * @throws Refusal 429 when the service stops, or {@code limits.max_tails} or
     *     {@code limits.max_tails_per_tenant} tails are open
     */
    public Slot admit(String tenant) {
        if (closed.get()) {
            throw new Refusal(429, "tail_cap", "the query service is stopping; retry later");
        }
        synchronized (byTenant) {
            if (byTenant.getOrDefault(tenant, 0) >= perTenant) {
                throw new Refusal(
                        429,
                        "tail_tenant_cap",
                        "tenant " + tenant + " has " + perTenant + " live tails open (limits.max_tails_per_tenant); "
                                + "close one or retry later");
            }
            if (!slots.tryAcquire()) {
                throw new Refusal(429, "tail_cap", "too many live tails are open (limits.max_tails); retry later");
            }
            byTenant.merge(tenant, 1, Integer::sum);
        }
        return new Slot(tenant);
    }

    /** One not yet sent: where to read it, when it was observed, its id's hash. */
    private record Unsent(ShardSearcher searcher, ShardSearcher.LongKey key, long hash) {
        Unsent(ShardSearcher searcher, ShardSearcher.LongKey key) {
            this(searcher, key, SentWindow.hash(key.key().recordId()));
        }

        long observed() {
            return key.value();
        }

        IdBytes id() {
            return key.key().recordId();
        }
    }

    /** Where a tail is: the last record sent in (observed_time, record_id) order, and what it sent in its window. */
    private static final class State {
        long cursorTime;
        IdBytes cursorId = IdBytes.EMPTY; // compared as the engine sorts it: by unsigned bytes
        long floor;
        final SentWindow window;

        State(SentWindow window) {
            this.window = window;
        }
    }

    /** A poll's records read: written after its searchers are closed, while its memory is still held. */
    private record Sent(List<Unsent> records, String[] sources) {
        static final Sent NONE = new Sent(List.of(), new String[0]);

        void writeTo(TailOut out) throws Exception {
            for (int i = 0; i < sources.length; i++) {
                out.record(records.get(i).id(), sources[i]);
            }
        }
    }

    /**
     * Follows {@code q} for {@code tenant} from {@code began} (epoch millis, observed time) into {@code out} until
     * {@code gone} is set, the service stops, or a write fails (thrown), on the calling thread: the caller holds a
     * {@link Slot} for it.
     */
    public void follow(String tenant, ShardKind kind, ParsedQuery q, TailOut out, AtomicBoolean gone, long began)
            throws Exception {
        active.incrementAndGet();
        try {
            run(tenant, kind, q, out, gone, began);
        } finally {
            active.decrementAndGet();
        }
    }

    private void run(String tenant, ShardKind kind, ParsedQuery q, TailOut out, AtomicBoolean gone, long began)
            throws Exception {
        long lag = env.config().limits().tailLag().toMillis();
        State st = new State(new SentWindow(windowBytes));
        st.cursorTime = began; // records observed before the tail began are not sent
        st.floor = began - lag; // records observed before it are out of the window
        ShardQuery query = ShardQuery.of(tenant, q, Long.MIN_VALUE, Long.MAX_VALUE);
        windows.add(st.window);
        try {
            long lastWrite = System.nanoTime();
            while (!closed.get() && !gone.get()) {
                long lagFloor = env.clock().millis() - lag;
                try (AnswerMemory.Lease lease = memory.lease(tenant)) { // until the poll's answer is written
                    Sent sent;
                    long from = Math.max(st.floor, began);
                    long missed = 0;
                    long next;
                    try (Poll p = new Poll(query, kind, from, lagFloor)) {
                        sent = send(p.unsent(st), st, lease);
                        // records observed before next can no longer appear (tail_lag), or no longer be remembered
                        // (the window's budget, room kept for the next poll; never past the cursor's millisecond,
                        // whose records after the cursor are still to be sent): count the unsent ones
                        int keep = st.window.capacity() - PER_POLL;
                        next = Math.max(lagFloor, Math.min(st.window.floorToKeep(keep), st.cursorTime));
                        if (next > st.floor) {
                            if (next > from) {
                                missed = p.countBefore(next) - st.window.countBefore(next);
                            }
                            st.window.dropBefore(next);
                            st.floor = next;
                        }
                        if (st.window.size() > keep) { // what is left was all sent in the cursor's millisecond
                            st.window.collapse();
                        }
                    }
                    sent.writeTo(out);
                    if (missed > 0) {
                        env.metrics().tailSkipped(missed);
                        out.skipped(missed, from, next);
                    }
                    if (!out.isEmpty()) {
                        out.flush();
                        lastWrite = System.nanoTime();
                    }
                }
                if (System.nanoTime() - lastWrite > HEARTBEAT_NANOS) {
                    out.keepAlive(); // fails once the client is gone: the slot is given back
                    lastWrite = System.nanoTime();
                }
                LockSupport.parkNanos(env.config().limits().tailPoll().toNanos());
            }
        } finally {
            windows.remove(st.window);
        }
    }

    /** Reads up to a poll's worth of the unsent records, in order, and marks them sent. */
    private Sent send(List<Unsent> unsent, State st, AnswerMemory.Lease lease) throws IOException {
        if (unsent.isEmpty()) {
            return Sent.NONE;
        }
        unsent.sort(Comparator.comparingLong(Unsent::observed).thenComparing(Unsent::id));
        List<Unsent> batch = unsent.subList(0, Math.min(PER_POLL, unsent.size()));
        List<SourceReader.Ref> refs = new ArrayList<>(batch.size());
        batch.forEach(
                u -> refs.add(new SourceReader.Ref(u.searcher(), u.key().key().doc())));
        long maxBytes = env.config().limits().maxAnswerBytes();
        long deadline = System.nanoTime() + env.config().limits().queryTimeout().toNanos();
        try {
            lease.reserve(maxBytes, deadline);
        } catch (Refusal r) {
            return Sent.NONE; // the memory is busy: these records wait for the next poll
        }
        SourceReader.Read read =
                SourceReader.read(env.fanOut(), refs, env.config().limits().shardConcurrency(), maxBytes, deadline);
        int n = read.sources().length;
        long[] times = new long[n];
        long[] hashes = new long[n];
        for (int i = 0; i < n; i++) {
            Unsent u = batch.get(i);
            times[i] = u.observed();
            hashes[i] = u.hash();
            if (u.observed() > st.cursorTime || (u.observed() == st.cursorTime && u.id().compareTo(st.cursorId) > 0)) {
                st.cursorTime = u.observed();
                st.cursorId = u.id();
            }
        }
        st.window.add(times, hashes, n);
        return new Sent(batch, read.sources());
    }

    /**
     * The searchers of one poll (today's and yesterday's shards), closed with it, and what it counted: each matching
     * record of the window is counted at most once per poll.
     */
    private final class Poll implements AutoCloseable {
        private final List<ShardSearcher> searchers = new ArrayList<>();
        private final ShardQuery query;
        private final long from;
        private final long split;
        private final TreeMap<Long, Long> counted = new TreeMap<>(); // to -> matches observed in [from, to)
        private final long deadline =
                System.nanoTime() + env.config().limits().queryTimeout().toNanos();

        /** {@code from}: where the window starts; {@code split}: where it is about to start (counts split there). */
        Poll(ShardQuery query, ShardKind kind, long from, long split) throws IOException {
            this.query = query;
            this.from = from;
            this.split = split;
            LocalDate today = LocalDate.ofInstant(env.clock().instant(), ZoneOffset.UTC);
            for (ShardId id : env.source().shards(kind, query.tenant())) {
                if (!id.day().isBefore(today.minusDays(1))) {
                    Optional<ShardSearcher> s = env.source().open(id);
                    s.ifPresent(searchers::add);
                }
            }
        }

        private ShardQuery observed(long lo, long hi) {
            return query.with(new ShardQuery.ObservedRange(lo, hi));
        }

        /**
         * Up to {@link #PER_POLL} records not sent yet: those after the cursor in (observed_time, record_id) order
         * (none of them sent, by the order), and, when the window before the cursor holds more matches than were sent
         * there (records that became searchable late), those too (at most {@link #SCAN} keys looked at for them).
         */
        List<Unsent> unsent(State st) throws IOException {
            List<Unsent> out = new ArrayList<>();
            ShardQuery fresh = observed(st.floor, Long.MAX_VALUE);
            String cursorId = st.cursorId.text();
            for (ShardSearcher s : searchers) {
                for (ShardSearcher.LongKey k :
                        s.keysByTime(Fields.OBSERVED_TIME, fresh, st.cursorTime, cursorId, PER_POLL, deadline)) {
                    out.add(new Unsent(s, k));
                }
            }
            if (st.cursorTime > from) {
                countBefore(Math.min(split, st.cursorTime)); // the window's move after the poll counts up to split
                if (countBefore(st.cursorTime) > st.window.countBefore(st.cursorTime)) {
                    addLate(st, out);
                }
            }
            return out;
        }

        private void addLate(State st, List<Unsent> out) throws IOException {
            ShardQuery late = observed(from, st.cursorTime);
            int looked = 0;
            for (ShardSearcher s : searchers) {
                Long afterTime = null;
                String afterId = null;
                while (looked < SCAN && out.size() < 2 * PER_POLL) {
                    List<ShardSearcher.LongKey> keys = s.keysByTime(
                            Fields.OBSERVED_TIME, late, afterTime == null ? 0 : afterTime, afterId, PAGE, deadline);
                    looked += keys.size();
                    for (ShardSearcher.LongKey k : keys) {
                        Unsent u = new Unsent(s, k);
                        if (!st.window.contains(u.observed(), u.hash())) {
                            out.add(u);
                        }
                    }
                    if (keys.size() < PAGE) {
                        break;
                    }
                    ShardSearcher.LongKey last = keys.get(keys.size() - 1);
                    afterTime = last.value();
                    afterId = last.key().recordId().text();
                }
            }
        }

        /** Matching records observed in [from, to): counted from the nearest point counted before, and kept. */
        long countBefore(long to) throws IOException {
            if (to <= from) {
                return 0;
            }
            Long known = counted.get(to);
            if (known != null) {
                return known;
            }
            Map.Entry<Long, Long> below = counted.floorEntry(to);
            long n = below == null ? 0 : below.getValue();
            ShardQuery range = observed(below == null ? from : below.getKey(), to);
            for (ShardSearcher s : searchers) {
                n += s.count(range, deadline);
            }
            counted.put(to, n);
            return n;
        }

        @Override
        public void close() throws IOException {
            for (ShardSearcher s : searchers) {
                s.close();
            }
        }
    }

    /** Ends every tail at its next poll. */
    @Override
    public void close() {
        closed.set(true);
    }
}
