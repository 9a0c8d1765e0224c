package dev.logpipe.forwarder.tail;

import dev.logpipe.forwarder.sink.Batch;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second stage of the pipeline: one owned thread that publishes batches in the order they were
 * submitted (encoding and writing run here, while the tail thread reads and parses the next chunk) and
 * hands each back with its outcome. Both queues are bounded by the number of batches in flight. After a
 * batch fails (a stop while the sink was failing), every later batch comes back failed unpublished, so
 * acknowledgements never overtake a failure.
 */
final class PublishLane {
    private static final Logger log = LoggerFactory.getLogger(PublishLane.class);

    /** A batch on its way through the lane, and whether the sink acknowledged it. */
    static final class InFlight {
        final Tailer tailer;
        final Batch batch;
        volatile boolean acknowledged;

        InFlight(Tailer tailer, Batch batch) {
            this.tailer = tailer;
            this.batch = batch;
        }
    }

    private static final InFlight POISON = new InFlight(null, null);

    private final Publisher publisher;
    private final BlockingQueue<InFlight> submitted;
    private final BlockingQueue<InFlight> done;
    private final Thread thread;
    private volatile long deadlineNanos = Long.MAX_VALUE;
    private boolean failed;

    PublishLane(Publisher publisher, int capacity) {
        this.publisher = publisher;
        this.submitted = new ArrayBlockingQueue<>(capacity + 1);
        this.done = new ArrayBlockingQueue<>(capacity + 1);
        this.thread = new Thread(this::run, "log-forwarder-publish");
    }

    void start() {
        thread.start();
    }

    /** From now on, a failing sink is retried only until this {@link System#nanoTime()} deadline (final drain). */
    void retryUntil(long deadline) {
        deadlineNanos = deadline;
    }

    void submit(InFlight f) throws InterruptedException {
        submitted.put(f);
    }

    /** The next finished batch, waiting at most {@code timeoutNanos}; null if none finished in time. */
    InFlight poll(long timeoutNanos) throws InterruptedException {
        return timeoutNanos <= 0 ? done.poll() : done.poll(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void run() {
        try {
            while (true) {
                InFlight f = submitted.take();
                if (f == POISON) {
                    return;
                }
                if (!failed) {
                    try {
                        publisher.publish(f.batch, deadlineNanos);
                        f.acknowledged = true;
                    } catch (Publisher.StoppedException e) {
                        failed = true;
                    } catch (RuntimeException e) {
                        log.error("unexpected failure publishing a batch of {}", f.batch.source().path(), e);
                        failed = true;
                    }
                }
                done.put(f);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the lane after the batches already submitted; waits for its thread. */
    void close() throws InterruptedException {
        submitted.put(POISON);
        thread.join(10_000);
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(5_000);
        }
    }
}
