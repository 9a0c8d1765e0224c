package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Batch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owned threads that decode and encode {@link Batch#deferEncoding deferred} batches (JSON, logfmt and container
 * lines), so that reading and parsing use two cores. Any thread takes any batch; the publish lane still sends
 * batches in the order they were read, each once it is encoded, so order and watermarks are unchanged. The queue
 * holds at most the pipeline's batches.
 */
final class ParseThreads {
    private static final Logger log = LoggerFactory.getLogger(ParseThreads.class);

    private record Job(Batch batch, LineContent content) {}

    private static final Job STOP = new Job(null, null);

    private final BlockingQueue<Job> queue;
    private final List<Thread> threads = new ArrayList<>();
    private final ForwarderMetrics metrics;
    private boolean closed;

    /** @param decoders makes one decoder per thread */
    ParseThreads(int count, int capacity, Supplier<RecordDecoder> decoders, ForwarderMetrics metrics) {
        this.queue = new ArrayBlockingQueue<>(capacity + count);
        this.metrics = metrics;
        for (int i = 0; i < count; i++) {
            RecordDecoder decoder = decoders.get();
            Thread t = new Thread(() -> run(decoder), "log-forwarder-parse-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    int count() {
        return threads.size();
    }

    void start() {
        for (Thread t : threads) {
            t.start();
        }
    }

    /** Queues a deferred batch with records; never blocks longer than until a thread takes a batch. */
    void submit(Batch batch, LineContent content) throws InterruptedException {
        queue.put(new Job(batch, content));
    }

    private void run(RecordDecoder decoder) {
        try {
            while (true) {
                Job job = queue.take();
                if (job == STOP) {
                    return;
                }
                Throwable failure = null;
                try {
                    decoder.encode(job.batch(), job.content());
                } catch (RuntimeException | Error e) {
                    log.error(
                            "encoding a batch of {} failed",
                            job.batch().source().path(),
                            e);
                    failure = e;
                }
                metrics.parseFailures.increment(decoder.takeParseFailures());
                metrics.timeParseFailures.increment(decoder.takeTimeFailures());
                job.batch().encoded(failure);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the threads after the batches already queued; idempotent. */
    void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < threads.size(); i++) {
            queue.put(STOP);
        }
        for (Thread t : threads) {
            t.join(10_000);
            if (t.isAlive()) {
                t.interrupt();
                t.join(5_000);
            }
        }
    }
}
