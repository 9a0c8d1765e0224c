package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Publisher;
import java.util.ArrayDeque;

/**
 * The tail loop's batches and where they are: free, or dispatched to the publish lane (by way of a parse thread
 * when their encoding is deferred) until acknowledged, then committed and free again. A fixed number of batches:
 * when none is free, taking one waits for an acknowledgement. Owns the publish lane's and the parse threads'
 * start and stop. Runs on the tail thread only.
 */
final class InFlightBatches {
    private final PublishLane lane;
    /** Threads that decode and encode the batches of structured and container files, or null (the tail thread does). */
    private final ParseThreads parse;

    private final RecordAssembler assembler;
    private final WatermarkCommits commits;
    private final ArrayDeque<Batch> free = new ArrayDeque<>();
    private int inFlight;

    InFlightBatches(
            Publisher publisher,
            ParseThreads parse,
            RecordAssembler assembler,
            WatermarkCommits commits,
            Format format) {
        this.parse = parse;
        int batches = parse == null ? TailLoop.BATCHES : TailLoop.BATCHES + parse.count();
        this.lane = new PublishLane(publisher, batches);
        this.assembler = assembler;
        this.commits = commits;
        for (int i = 0; i < batches; i++) {
            free.push(new Batch(format));
        }
    }

    /** Starts the parse threads, then the publish thread. */
    void start() {
        if (parse != null) {
            parse.start();
        }
        lane.start();
    }

    boolean any() {
        return inFlight > 0;
    }

    /** Takes a free batch (waiting for an acknowledgement if all are in flight) and points the assembler at it. */
    Batch start(Tailer t) throws Publisher.StoppedException, InterruptedException {
        while (free.isEmpty()) {
            if (inFlight == 0) {
                throw new AssertionError("every batch is taken but none is in flight: a batch was not released");
            }
            collectAcknowledgements(Long.MAX_VALUE);
        }
        Batch batch = free.pop();
        batch.reset(t.source(), t.dispatched());
        if (parse != null && t.parsesHeavily()) {
            batch.deferEncoding();
        }
        assembler.into(batch, t);
        return batch;
    }

    void release(Batch batch) {
        free.push(batch);
    }

    /** Hands the batch to the publish lane if it carries records or moves the commit offset; else frees it. */
    void dispatch(Tailer t, Batch batch) throws InterruptedException {
        if (batch.isEmpty() && batch.commitOffset() == t.dispatched()) {
            release(batch);
            return;
        }
        t.dispatched(batch.commitOffset());
        inFlight++;
        if (batch.deferred() && !batch.isEmpty()) {
            parse.submit(batch, t.content());
        }
        lane.submit(new PublishLane.InFlight(t, batch));
    }

    /** Commits acknowledged batches; waits up to {@code timeoutNanos} for the first one. */
    void collectAcknowledgements(long timeoutNanos) throws Publisher.StoppedException, InterruptedException {
        long wait = timeoutNanos;
        while (inFlight > 0) {
            PublishLane.InFlight f = lane.poll(wait);
            if (f == null) {
                return;
            }
            wait = 0;
            inFlight--;
            free.push(f.batch);
            if (!f.acknowledged) {
                throw new Publisher.StoppedException();
            }
            commits.commit(f.tailer, f.batch);
        }
    }

    void awaitAllAcknowledged() throws Publisher.StoppedException, InterruptedException {
        while (inFlight > 0) {
            collectAcknowledgements(Long.MAX_VALUE);
        }
    }

    /** From now on the publish lane retries a failing sink only until {@code deadlineNanos} ({@link System#nanoTime}). */
    void retryUntil(long deadlineNanos) {
        lane.retryUntil(deadlineNanos);
    }

    /**
     * Stops the publish thread, then the parse threads (the lane may still wait for a batch being encoded). Both are
     * stopped even when interrupted; returns whether it was.
     */
    boolean closeThreads() {
        boolean interrupted = false;
        try {
            lane.close();
        } catch (InterruptedException e) {
            interrupted = true;
        }
        try {
            if (parse != null) {
                parse.close();
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        return interrupted;
    }
}
