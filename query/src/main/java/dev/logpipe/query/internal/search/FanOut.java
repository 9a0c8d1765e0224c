package dev.logpipe.query.internal.search;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.CorruptShardException;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * Searches the shards of a plan in parallel on a shared, bounded pool, at most {@code lanes} at once for one query
 * (the concurrency cap fixed at plan time; the calling thread is one of the lanes), and waits no longer than the
 * query's deadline. Every shard ends with an {@link Outcome}: its result, or why there is none (timeout, error, gone).
 * A query error (a query Lucene cannot run) is thrown to the caller as {@link IllegalArgumentException}.
 *
 * <p>A {@link ShardCall} on an engine that {@link ShardSource#callsTogether} (a remote one) goes to all the shards
 * at once in one round trip on the calling thread instead of one shard per lane; each shard still ends with its own
 * outcome, by the same causes.
 */
public final class FanOut {
    private final ShardSource source;
    private final ExecutorService pool;

    public FanOut(ShardSource source, ExecutorService pool) {
        this.source = source;
        this.pool = pool;
    }

    /** The engine searched. */
    public ShardSource source() {
        return source;
    }

    /** The work on one shard. */
    @FunctionalInterface
    public interface Task<T> {
        T run(ShardSearcher s, long deadlineNanos) throws IOException;
    }

    /** What became of one shard: {@code value} when {@code failure} is null. */
    public record Outcome<T>(T value, String failure, String detail) {
        public Outcome(T value, String failure) {
            this(value, failure, null);
        }

        public boolean ok() {
            return failure == null;
        }
    }

    /**
     * A shard's result with its searcher still open (a search's phase two reads the winners' sources through it):
     * the caller closes it, and every one it gets.
     */
    public record Held<T>(ShardSearcher searcher, T value) implements Closeable {
        @Override
        public void close() throws IOException {
            searcher.close();
        }
    }

    /** Runs {@code task} on each shard and closes each shard's searcher after it. */
    public <T> Map<ShardId, Outcome<T>> run(List<ShardId> shards, int lanes, long deadlineNanos, Task<T> task) {
        return fan(shards, lanes, deadlineNanos, task, false);
    }

    /**
     * Runs {@code task} on each shard and hands each answering shard's searcher over with its result (close every
     * {@link Held}; one that answers after the deadline is closed here, since its result is dropped).
     */
    public <T> Map<ShardId, Outcome<Held<T>>> runHeld(
            List<ShardId> shards, int lanes, long deadlineNanos, Task<T> task) {
        return fan(shards, lanes, deadlineNanos, task, true);
    }

    /** {@link #run(List, int, long, Task)} of a call: in one round trip on an engine that calls shards together. */
    public <T> Map<ShardId, Outcome<T>> run(List<ShardId> shards, int lanes, long deadlineNanos, ShardCall<T> call) {
        return source.callsTogether()
                ? together(shards, deadlineNanos, call, false)
                : fan(shards, lanes, deadlineNanos, call::on, false);
    }

    /** {@link #runHeld(List, int, long, Task)} of a call: in one round trip on an engine that calls shards together. */
    public <T> Map<ShardId, Outcome<Held<T>>> runHeld(
            List<ShardId> shards, int lanes, long deadlineNanos, ShardCall<T> call) {
        return source.callsTogether()
                ? together(shards, deadlineNanos, call, true)
                : fan(shards, lanes, deadlineNanos, call::on, true);
    }

    /**
     * Every shard opened, then asked the call in one round trip ({@link ShardSource#callAll}) on the calling thread;
     * each answer becomes the shard's outcome as {@link #one} makes it.
     */
    private <T, R> Map<ShardId, Outcome<R>> together(
            List<ShardId> shards, long deadlineNanos, ShardCall<T> call, boolean hold) {
        Map<ShardId, Outcome<?>> out = new HashMap<>();
        List<RuntimeException> queryErrors = new ArrayList<>();
        List<ShardId> asked = new ArrayList<>(shards.size());
        List<ShardSearcher> searchers = new ArrayList<>(shards.size());
        try {
            for (ShardId id : shards) {
                try {
                    Optional<ShardSearcher> s = source.open(id);
                    if (s.isPresent()) {
                        asked.add(id);
                        searchers.add(s.get());
                    } else {
                        out.put(id, new Outcome<>(null, "gone"));
                    }
                } catch (IOException | RuntimeException e) {
                    out.put(id, failed(id, e, queryErrors));
                }
            }
            List<ShardCall.Answer<T>> answers = answers(searchers, call, deadlineNanos);
            for (int i = 0; i < asked.size(); i++) {
                ShardCall.Answer<T> a = answers.get(i);
                ShardSearcher searcher = searchers.get(i);
                boolean handedOver = a.failure() == null && hold;
                out.put(
                        asked.get(i),
                        a.failure() != null
                                ? failed(asked.get(i), a.failure(), queryErrors)
                                : new Outcome<>(hold ? new Held<>(searcher, a.value()) : a.value(), null));
                if (!handedOver) {
                    closeQuietly(searcher);
                }
            }
        } catch (RuntimeException | Error e) { // not a shard's failure: release what is held or still open
            out.values().forEach(FanOut::closeHeld);
            searchers.forEach(FanOut::closeQuietly);
            throw e;
        }
        Map<ShardId, Outcome<R>> ordered = new LinkedHashMap<>();
        for (ShardId id : shards) {
            @SuppressWarnings("unchecked")
            Outcome<R> o = (Outcome<R>) out.get(id);
            ordered.put(id, o);
        }
        if (!queryErrors.isEmpty()) {
            ordered.values().forEach(FanOut::closeHeld);
            throw queryErrors.get(0);
        }
        return ordered;
    }

    /** The engine's answers, or each shard timed out (past the deadline) or failed as the whole round trip did. */
    private <T> List<ShardCall.Answer<T>> answers(
            List<ShardSearcher> searchers, ShardCall<T> call, long deadlineNanos) {
        if (searchers.isEmpty()) {
            return List.of();
        }
        Exception all;
        if (System.nanoTime() - deadlineNanos > 0) {
            all = new ShardSearcher.TimedOut(searchers.get(0).shard());
        } else {
            try {
                List<ShardCall.Answer<T>> answers = source.callAll(searchers, call, deadlineNanos);
                if (answers.size() != searchers.size()) {
                    throw new IllegalStateException("the engine answered " + answers.size() + " of " + searchers.size()
                            + " shards asked together");
                }
                return answers;
            } catch (IOException | RuntimeException e) {
                all = e;
            }
        }
        List<ShardCall.Answer<T>> failed = new ArrayList<>(searchers.size());
        for (int i = 0; i < searchers.size(); i++) {
            failed.add(ShardCall.Answer.failed(all));
        }
        return failed;
    }

    private static void closeQuietly(ShardSearcher s) {
        try {
            s.close();
        } catch (IOException | RuntimeException e) {
            LoggerFactory.getLogger(FanOut.class).warn("releasing a shard searcher failed: {}", e.toString());
        }
    }

    @SuppressWarnings("unchecked")
    private <T, R> Map<ShardId, Outcome<R>> fan(
            List<ShardId> shards, int lanes, long deadlineNanos, Task<T> task, boolean hold) {
        Map<ShardId, Outcome<R>> out = new HashMap<>();
        boolean[] abandoned = {false};
        ConcurrentLinkedQueue<ShardId> todo = new ConcurrentLinkedQueue<>(shards);
        int n = Math.min(lanes, shards.size());
        CountDownLatch done = new CountDownLatch(n);
        List<RuntimeException> queryErrors = new CopyOnWriteArrayList<>();
        Runnable lane = () -> {
            try {
                ShardId id;
                while ((id = todo.poll()) != null) {
                    Outcome<R> o = System.nanoTime() - deadlineNanos > 0
                            ? new Outcome<>(null, "timeout")
                            : (Outcome<R>) one(id, deadlineNanos, task, queryErrors, hold);
                    synchronized (out) {
                        if (!abandoned[0]) {
                            out.put(id, o);
                            continue;
                        }
                    }
                    closeHeld(o); // answered after the caller stopped waiting: dropped
                }
            } finally {
                done.countDown();
            }
        };
        // the calling thread is one of the lanes (it would only wait otherwise); the others run on the pool
        for (int i = 1; i < n; i++) {
            try {
                pool.execute(lane);
            } catch (RejectedExecutionException e) {
                done.countDown(); // the pool is full: fewer lanes, the calling thread still works through the shards
            }
        }
        try {
            if (n > 0) {
                lane.run();
            }
        } catch (RuntimeException | Error e) { // not a shard's failure (those are outcomes): release what is held
            synchronized (out) {
                abandoned[0] = true;
                out.values().forEach(FanOut::closeHeld);
            }
            throw e;
        }
        try {
            long wait = deadlineNanos - System.nanoTime();
            done.await(Math.max(0, wait) + TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<ShardId, Outcome<R>> ordered = new LinkedHashMap<>();
        synchronized (out) {
            abandoned[0] = true;
            for (ShardId id : shards) {
                Outcome<R> o = out.get(id);
                ordered.put(id, o == null ? new Outcome<>(null, "timeout") : o);
            }
        }
        // a shard still running past the deadline finishes in the background; its answer is dropped
        todo.clear();
        if (!queryErrors.isEmpty()) {
            ordered.values().forEach(FanOut::closeHeld);
            throw queryErrors.get(0);
        }
        return ordered;
    }

    private static void closeHeld(Outcome<?> o) {
        if (o.value() instanceof Held<?> h) {
            closeQuietly(h.searcher());
        }
    }

    private <T> Outcome<?> one(
            ShardId id, long deadlineNanos, Task<T> task, List<RuntimeException> queryErrors, boolean hold) {
        try {
            Optional<ShardSearcher> s = source.open(id);
            if (s.isEmpty()) {
                return new Outcome<>(null, "gone");
            }
            ShardSearcher searcher = s.get();
            boolean handedOver = false;
            try {
                T value = task.run(searcher, deadlineNanos);
                handedOver = hold;
                return new Outcome<>(hold ? new Held<>(searcher, value) : value, null);
            } finally {
                if (!handedOver) {
                    searcher.close();
                }
            }
        } catch (IOException | RuntimeException e) {
            return failed(id, e, queryErrors);
        }
    }

    /**
     * Why a shard has no result, by the cause of its failure: past the deadline, a query the engine cannot run (also
     * kept in {@code queryErrors}: the caller throws it), stored bytes that failed their checks, or any other error.
     */
    private static Outcome<?> failed(ShardId id, Exception e, List<RuntimeException> queryErrors) {
        if (e instanceof ShardSearcher.TimedOut) {
            return new Outcome<>(null, "timeout");
        }
        if (e instanceof IllegalArgumentException q) {
            queryErrors.add(q);
            return new Outcome<>(null, "query");
        }
        if (e instanceof CorruptShardException) {
            LoggerFactory.getLogger(FanOut.class).error("searching shard {} failed: {}", id, e.getMessage());
            return new Outcome<>(null, "corrupt", e.getMessage());
        }
        LoggerFactory.getLogger(FanOut.class).warn("searching shard {} failed: {}", id, e.toString());
        return new Outcome<>(null, "error");
    }

    /** One of a batch of jobs. */
    @FunctionalInterface
    public interface Job {
        void run(int index) throws IOException;
    }

    /**
     * Runs jobs 0..n-1 on up to {@code lanes} threads, the calling thread one of them, and returns when every job
     * started is done (the first failure is thrown then). No job starts past {@code deadlineNanos}: the ones left are
     * not run, and a lane still queued on the pool when the calling thread is done is dropped instead of waited for.
     * For short work on searchers the caller holds open, such as reading sources.
     *
     * @return how many jobs ran (all n unless the deadline passed)
     */
    public int each(int n, int lanes, long deadlineNanos, Job job) throws IOException {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        Runnable lane = () -> {
            int i;
            while (failures.isEmpty() && System.nanoTime() - deadlineNanos < 0 && (i = next.getAndIncrement()) < n) {
                ran.incrementAndGet();
                try {
                    job.run(i);
                } catch (IOException | RuntimeException e) {
                    failures.add(e);
                }
            }
        };
        int others = Math.max(0, Math.min(lanes, n) - 1);
        List<Future<?>> started = new ArrayList<>();
        List<AtomicBoolean> claims = new ArrayList<>();
        for (int k = 0; k < others; k++) {
            AtomicBoolean claim = new AtomicBoolean(); // taken once: by the lane starting, or by the caller dropping it
            try {
                started.add(pool.submit(() -> {
                    if (claim.compareAndSet(false, true)) {
                        lane.run();
                    }
                }));
                claims.add(claim);
            } catch (RejectedExecutionException e) {
                break; // the pool is full: the calling thread does the rest
            }
        }
        lane.run();
        boolean interrupted = false;
        for (int k = 0; k < started.size(); k++) {
            if (claims.get(k).compareAndSet(false, true)) {
                continue; // still queued behind other queries: it will not run, the calling thread did its share
            }
            Future<?> f = started.get(k);
            while (true) {
                try {
                    f.get(); // never returns before the job ends: the searchers must outlive it
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    failures.add(new IOException(e.getCause()));
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!failures.isEmpty()) {
            Exception e = failures.get(0);
            if (e instanceof IOException io) {
                throw io;
            }
            throw (RuntimeException) e;
        }
        return ran.get();
    }

    /** The shards of a result that did not answer, with why. */
    public static <T> List<String[]> failures(Map<ShardId, Outcome<T>> results) {
        List<String[]> out = new ArrayList<>();
        results.forEach((id, o) -> {
            if (!o.ok()) {
                out.add(new String[] {id.toString(), o.failure()});
            }
        });
        return out;
    }
}
