package dev.logpipe.forwarder.tail;

import dev.logpipe.forwarder.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.sink.Batch;
import dev.logpipe.forwarder.sink.Sink;
import dev.logpipe.forwarder.sink.SinkBusyException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a batch to the sink and retries with capped exponential backoff until it is acknowledged,
 * so a failing sink stalls the watermark instead of dropping lines (the files are the buffer, I1).
 * Logs once when the sink starts failing and once when it recovers, not per attempt.
 */
final class Publisher {
    private static final Logger log = LoggerFactory.getLogger(Publisher.class);
    static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /** A destination's Retry-After is honoured up to this long. */
    static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

    /** Thrown when a stop was requested while the sink was failing: the batch was not delivered. */
    static final class StoppedException extends Exception {
        private static final long serialVersionUID = 1L;

        StoppedException() {
            super("stopped while the sink was failing", null, false, false);
        }
    }

    private final Sink sink;
    private final ForwarderMetrics metrics;
    private final CountDownLatch stop;
    private boolean failing;
    private long failingSinceNanos;

    Publisher(Sink sink, ForwarderMetrics metrics, CountDownLatch stop) {
        this.sink = sink;
        this.metrics = metrics;
        this.stop = stop;
    }

    /**
     * Returns once the sink acknowledged the batch. With {@code deadlineNanos == Long.MAX_VALUE} it retries
     * until a stop is requested; otherwise (the final drain) until that {@link System#nanoTime()} deadline.
     */
    void publish(Batch batch, long deadlineNanos) throws StoppedException, InterruptedException {
        if (batch.isEmpty()) {
            return;
        }
        long backoff = FIRST_BACKOFF.toNanos();
        Duration hint;
        while (true) {
            long t0 = System.nanoTime();
            try {
                sink.publish(batch);
                metrics.publishLatency.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
                if (failing) {
                    failing = false;
                    metrics.sinkUp(true);
                    log.info("sink {} is accepting records again after {} ms; resuming from the watermarks",
                            sink.describe(), (System.nanoTime() - failingSinceNanos) / 1_000_000);
                }
                return;
            } catch (Exception e) {
                hint = e instanceof SinkBusyException busy ? busy.retryAfter() : null;
                metrics.publishFailures.increment();
                if (!failing) {
                    failing = true;
                    failingSinceNanos = System.nanoTime();
                    metrics.sinkUp(false);
                    log.warn("sink {} failed: {}. Retrying with backoff up to {}s (or the destination's Retry-After, "
                            + "up to {} min); lines stay in the source files and watermarks do not advance until it "
                            + "recovers", sink.describe(), e.toString(), MAX_BACKOFF.toSeconds(),
                            MAX_RETRY_AFTER.toMinutes());
                }
            }
            long remaining = deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                throw new StoppedException();
            }
            long suggested = hint == null ? backoff
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
        }
    }
}
