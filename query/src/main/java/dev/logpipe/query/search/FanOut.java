package dev.logpipe.query.search;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.ShardSearcher;
import dev.logpipe.index.store.ShardSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * Searches the shards of a plan in parallel on a shared, bounded pool, at most {@code lanes} at once for one query
 * (the concurrency cap fixed at plan time), and waits no longer than the query's deadline. Every shard ends with an
 * {@link Outcome}: its result, or why there is none (timeout, error, gone). A query error (a query Lucene cannot
 * run) is thrown to the caller as {@link IllegalArgumentException}.
 */
public final class FanOut {
    private final ShardSource source;
    private final ExecutorService pool;

    public FanOut(ShardSource source, ExecutorService pool) {
        this.source = source;
        this.pool = pool;
    }

    /** The work on one shard. */
    @FunctionalInterface
    public interface Task<T> {
        T run(ShardSearcher s, long deadlineNanos) throws IOException;
    }

    /** What became of one shard: {@code value} when {@code failure} is null. */
    public record Outcome<T>(T value, String failure) {
        public boolean ok() {
            return failure == null;
        }
    }

    public <T> Map<ShardId, Outcome<T>> run(List<ShardId> shards, int lanes, long deadlineNanos, Task<T> task) {
        Map<ShardId, Outcome<T>> out = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<ShardId> todo = new ConcurrentLinkedQueue<>(shards);
        int n = Math.min(lanes, shards.size());
        CountDownLatch done = new CountDownLatch(n);
        List<RuntimeException> queryErrors = new CopyOnWriteArrayList<>();
        Runnable lane = () -> {
            try {
                ShardId id;
                while ((id = todo.poll()) != null) {
                    if (System.nanoTime() - deadlineNanos > 0) {
                        out.put(id, new Outcome<>(null, "timeout"));
                        continue;
                    }
                    out.put(id, one(id, deadlineNanos, task, queryErrors));
                }
            } finally {
                done.countDown();
            }
        };
        int started = 0;
        for (int i = 0; i < n; i++) {
            try {
                pool.execute(lane);
                started++;
            } catch (RejectedExecutionException e) {
                done.countDown();
            }
        }
        if (started == 0) {
            ShardId id;
            while ((id = todo.poll()) != null) {
                out.put(id, new Outcome<>(null, "overloaded"));
            }
        }
        try {
            long wait = deadlineNanos - System.nanoTime();
            done.await(Math.max(0, wait) + TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!queryErrors.isEmpty()) {
            throw queryErrors.get(0);
        }
        Map<ShardId, Outcome<T>> ordered = new LinkedHashMap<>();
        for (ShardId id : shards) {
            Outcome<T> o = out.get(id);
            ordered.put(id, o == null ? new Outcome<>(null, "timeout") : o);
        }
        // a shard still running past the deadline finishes in the background; its answer is dropped
        todo.clear();
        return ordered;
    }

    private <T> Outcome<T> one(ShardId id, long deadlineNanos, Task<T> task, List<RuntimeException> queryErrors) {
        try {
            Optional<ShardSearcher> s = source.open(id);
            if (s.isEmpty()) {
                return new Outcome<>(null, "gone");
            }
            try (ShardSearcher searcher = s.get()) {
                return new Outcome<>(task.run(searcher, deadlineNanos), null);
            }
        } catch (ShardSearcher.TimedOut e) {
            return new Outcome<>(null, "timeout");
        } catch (IllegalArgumentException e) {
            queryErrors.add(e);
            return new Outcome<>(null, "query");
        } catch (IOException | RuntimeException e) {
            LoggerFactory.getLogger(FanOut.class).warn("searching shard {} failed: {}", id, e.toString());
            return new Outcome<>(null, "error");
        }
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
