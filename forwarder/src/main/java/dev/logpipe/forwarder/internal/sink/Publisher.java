package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a batch to the sink and retries with capped exponential backoff until it is acknowledged,
 * so a failing sink stalls the watermark instead of dropping lines (the files are the buffer: invariant I1, docs/architecture.md).
 * Logs once when the sink starts failing and once when it recovers, not per attempt.
 */
public final class Publisher {
    private static final Logger log = LoggerFactory.getLogger(Publisher.class);
    static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /** A destination's Retry-After is honoured up to this long. */
    static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

    /** Thrown when a stop was requested while the sink was failing: the batch was not delivered. */
    public static final class StoppedException extends Exception {
        private static final long serialVersionUID = 1L;

        public StoppedException() {
            super("stopped while the sink was failing", null, false, false);
        }
    }

    private final Sink sink;
    private final ForwarderMetrics metrics;
    private final CountDownLatch stop;
    private boolean failing;
    private long failingSinceNanos;

    /** What waits while the sink fails, and where publishing resumes, for the log lines. */
    private final String waiting;

    private final String resumingFrom;

    public Publisher(Sink sink, ForwarderMetrics metrics, CountDownLatch stop) {
        this(
                sink,
                metrics,
                stop,
                "lines stay in the source files and watermarks do not advance until it recovers",
                "watermarks");
    }

    public Publisher(Sink sink, ForwarderMetrics metrics, CountDownLatch stop, String waiting, String resumingFrom) {
        this.sink = sink;
        this.metrics = metrics;
        this.stop = stop;
        this.waiting = waiting;
        this.resumingFrom = resumingFrom;
    }

    /** Starts an overlapping publish (see {@link Sink#send}); its failure is handled by {@link #failed} and a retry. */
    public Sink.Delivery send(Batch batch) throws IOException {
        return sink.send(batch);
    }

    /** A publish started at {@code startNanos} was acknowledged. */
    public void succeeded(long startNanos) {
        metrics.publishLatency.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        if (failing) {
            failing = false;
            metrics.sinkUp(true);
            log.info(
                    "sink {} is accepting records again after {} ms; resuming from the {}",
                    sink.describe(),
                    (System.nanoTime() - failingSinceNanos) / 1_000_000,
                    resumingFrom);
        }
    }

    /** A publish attempt failed: counted, and logged once per outage. */
    public void failed(Exception e) {
        metrics.publishFailures.increment();
        if (!failing) {
            failing = true;
            failingSinceNanos = System.nanoTime();
            metrics.sinkUp(false);
            log.warn(
                    "sink {} failed: {}. Retrying with backoff up to {}s (or the destination's Retry-After, "
                            + "up to {} min); {}",
                    sink.describe(),
                    e.toString(),
                    MAX_BACKOFF.toSeconds(),
                    MAX_RETRY_AFTER.toMinutes(),
                    waiting);
        }
    }

    /**
     * Returns once the sink acknowledged the batch. With {@code deadlineNanos == Long.MAX_VALUE} it retries
     * until a stop is requested; otherwise (the final drain) until that {@link System#nanoTime()} deadline.
     */
    public void publish(Batch batch, long deadlineNanos) throws StoppedException, InterruptedException {
        if (batch.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        try {
            sink.publish(batch);
            succeeded(t0);
        } catch (Exception e) {
            retry(batch, e, deadlineNanos);
        }
    }

    /**
     * After {@code first} failed a publish of {@code batch}: counts it, waits (backoff or Retry-After) and
     * publishes again until acknowledged; the deadline and stop rules are those of {@link #publish}.
     */
    public void retry(Batch batch, Exception first, long deadlineNanos) throws StoppedException, InterruptedException {
        long backoff = FIRST_BACKOFF.toNanos();
        failed(first);
        Duration hint = first instanceof SinkBusyException busy ? busy.retryAfter() : null;
        while (true) {
            long remaining = deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                throw new StoppedException();
            }
            long suggested = hint == null
                    ? backoff
                    : Math.max(FIRST_BACKOFF.toNanos(), Math.min(hint.toNanos(), MAX_RETRY_AFTER.toNanos()));
            long wait = Math.min(suggested, remaining);
            if (deadlineNanos == Long.MAX_VALUE) {
                if (stop.await(wait, TimeUnit.NANOSECONDS)) {
                    throw new StoppedException();
                }
            } else {
                TimeUnit.NANOSECONDS.sleep(wait); // draining after a stop: keep trying until the deadline
            }
            backoff = Math.min(backoff * 2, MAX_BACKOFF.toNanos());
            long t0 = System.nanoTime();
            try {
                sink.publish(batch);
                succeeded(t0);
                return;
            } catch (Exception e) {
                hint = e instanceof SinkBusyException busy ? busy.retryAfter() : null;
                failed(e);
            }
        }
    }
}
