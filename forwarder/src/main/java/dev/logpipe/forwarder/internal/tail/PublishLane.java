package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Publisher;
import dev.logpipe.forwarder.internal.sink.Sink;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last stage of the pipeline: one owned thread that publishes batches in the order they were
 * submitted (writing runs here, while the tail thread reads and encodes the next chunk; a batch left to a
 * parse thread is sent once that thread has encoded it) and hands each
 * back with its outcome, in the same order. A sink that can overlap batches ({@link Sink#send}) has up
 * to {@link #MAX_PENDING} of them awaiting acknowledgement; a failed one is retried before any later
 * one is handed back. Both queues are bounded by the number of batches in flight. After a
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
    /** Batches whose acknowledgement may be outstanding while the next one is sent. */
    private static final int MAX_PENDING = 2;

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

    /** A batch handed to the sink whose acknowledgement is still outstanding. */
    private record Pending(InFlight f, Sink.Delivery delivery, long startNanos) {}

    private void run() {
        ArrayDeque<Pending> pending = new ArrayDeque<>();
        try {
            while (true) {
                InFlight f = pending.isEmpty() ? submitted.take() : submitted.poll();
                if (f == null) {
                    complete(pending.poll()); // nothing new to send: finish the oldest
                    continue;
                }
                if (f == POISON) {
                    while (!pending.isEmpty()) {
                        complete(pending.poll());
                    }
                    return;
                }
                Sink.Delivery delivery = start(f);
                pending.add(new Pending(f, delivery, System.nanoTime()));
                if (delivery instanceof Failed) {
                    // Retry it (and finish those before it) before any later batch goes out: order is kept.
                    while (!pending.isEmpty()) {
                        complete(pending.poll());
                    }
                } else if (pending.size() > MAX_PENDING) {
                    complete(pending.poll());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Sink.Delivery start(InFlight f) throws InterruptedException {
        // Even a batch that will not be sent is handed back only once no parse thread works on it any more.
        Throwable unencoded = f.batch.isEmpty() ? null : f.batch.awaitEncoded();
        if (failed) {
            return null;
        }
        if (f.batch.isEmpty()) {
            return Sink.Delivery.DONE;
        }
        if (unencoded != null) {
            // A parse thread failed on it (logged there): like an unexpected sink failure, nothing later goes out.
            failed = true;
            return null;
        }
        try {
            return publisher.send(f.batch);
        } catch (IOException e) {
            return new Failed(e);
        } catch (RuntimeException e) {
            return new Failed(new IOException("sink failed unexpectedly: " + e, e));
        }
    }

    /** A send that failed at once (every synchronous sink's failure). */
    private record Failed(IOException cause) implements Sink.Delivery {
        @Override
        public void await() throws IOException {
            throw cause;
        }
    }

    /** Waits for one batch (retrying it until acknowledged or stopped) and hands it back, in submission order. */
    private void complete(Pending p) throws InterruptedException {
        if (!failed && p.delivery() != null) {
            try {
                p.delivery().await();
                publisher.succeeded(p.startNanos());
                p.f().acknowledged = true;
            } catch (IOException e) {
                try {
                    publisher.retry(p.f().batch, e, deadlineNanos);
                    p.f().acknowledged = true;
                } catch (Publisher.StoppedException stopped) {
                    failed = true;
                }
            } catch (RuntimeException e) {
                log.error(
                        "unexpected failure publishing a batch of {}",
                        p.f().batch.source().path(),
                        e);
                failed = true;
            }
        }
        done.put(p.f());
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
