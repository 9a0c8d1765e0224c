package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Publisher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forwarder's pipeline, run by one owned thread: scan sources, read each file chunk by chunk,
 * parse, filter, publish, and only then advance the watermark. When a stop is requested it stops
 * reading, publishes held-back multiline records (until a drain deadline), and writes the watermark
 * file one last time. Held-back pieces of a split container line are not published at a stop: the
 * watermark stays before them and the next run reads the line whole.
 */
public final class TailLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(TailLoop.class);
    private static final int CHUNKS_PER_FILE_PER_ROUND = 8;
    /** Batches in the pipeline at once: one being filled, the others being published or waiting. */
    static final int BATCHES = 3;
    /** How long a graceful stop keeps trying to publish held-back records. */
    public static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(5);

    /** Timing knobs of the loop. */
    record Timing(Duration poll, Duration scanInterval, Duration multilineFlush, Duration drainTimeout) {}

    /** What the loop drives: the open files, the batches in flight, the watermarks, the record assembler. */
    record Parts(Tailers tailers, InFlightBatches batches, WatermarkCommits commits, RecordAssembler assembler) {}

    private final Tailers tailers;
    private final InFlightBatches batches;
    private final WatermarkCommits commits;
    private final RecordAssembler assembler;
    private final ForwarderMetrics metrics;
    private final CountDownLatch stop;
    private final LongSupplier ticker;
    private final Timing timing;
    private final ByteBuffer buffer;
    private long rounds;

    TailLoop(
            Parts parts,
            ForwarderMetrics metrics,
            CountDownLatch stop,
            LongSupplier ticker,
            Timing timing,
            int readBufferBytes) {
        this.tailers = parts.tailers();
        this.batches = parts.batches();
        this.commits = parts.commits();
        this.assembler = parts.assembler();
        this.metrics = metrics;
        this.stop = stop;
        this.ticker = ticker;
        this.timing = timing;
        this.buffer = ByteBuffer.allocate(readBufferBytes);
    }

    @Override
    public void run() {
        batches.start();
        try {
            loop();
        } catch (Publisher.StoppedException e) {
            log.info("stop requested while the sink was failing; unacknowledged lines will be read again on restart");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            drain();
        }
    }

    private void loop() throws Publisher.StoppedException, InterruptedException {
        long nextScan = ticker.getAsLong();
        while (stop.getCount() > 0) {
            try {
                nextScan = round(nextScan);
            } catch (RuntimeException e) {
                log.error("unexpected failure in the tail loop; backing off 1s and continuing", e);
                stop.await(1, TimeUnit.SECONDS);
            }
        }
    }

    /** One pass over every open file; returns when the next scan is due. */
    private long round(long nextScan) throws Publisher.StoppedException, InterruptedException {
        long now = ticker.getAsLong();
        if (now - nextScan >= 0) {
            batches.awaitAllAcknowledged();
            tailers.scan(now);
            for (Tailer t : tailers.finished(now)) {
                tailers.close(t);
            }
            tailers.reportLag();
            nextScan = now + timing.scanInterval().toNanos();
        }
        boolean progress = false;
        for (Tailer t : tailers.ordered()) {
            if (stop.getCount() == 0) {
                break;
            }
            if (t.waitsForPredecessor()) {
                continue;
            }
            if (t.pacing().dueForPoll(rounds)) {
                boolean got = pump(t);
                t.pacing().polled(got);
                progress |= got;
            }
            idleFlush(t);
        }
        rounds++;
        batches.collectAcknowledgements(0);
        commits.flushIfDue();
        if (!progress) {
            long wait = Math.min(timing.poll().toNanos(), Math.max(0, nextScan - ticker.getAsLong()));
            if (timing.multilineFlush().toNanos() > 0) {
                wait = Math.min(wait, Math.max(timing.multilineFlush().toNanos() / 2, 1_000_000));
            }
            wait = Math.max(wait, 1_000_000);
            if (batches.any()) {
                batches.collectAcknowledgements(wait);
            } else {
                stop.await(wait, TimeUnit.NANOSECONDS);
            }
        }
        return nextScan;
    }

    /** Reads up to a few chunks of one file; returns whether anything was read. */
    private boolean pump(Tailer t) throws Publisher.StoppedException, InterruptedException {
        boolean progress = false;
        for (int i = 0; i < CHUNKS_PER_FILE_PER_ROUND; i++) {
            try {
                t.refreshFingerprint();
            } catch (IOException e) {
                readFailed(t, e);
                return progress;
            }
            Batch batch = batches.start(t);
            int n;
            try {
                n = t.read(buffer, assembler, ticker.getAsLong());
            } catch (IOException e) {
                batches.release(batch);
                readFailed(t, e);
                return progress;
            } catch (RuntimeException e) {
                // A bug on some input: nothing of this chunk counts; read it again from the last dispatched record.
                batches.release(batch);
                t.rewindToDispatched();
                throw e;
            }
            if (t.pacing().readRecovered()) {
                log.info("reading {} works again", t.path());
            }
            if (n == Tailer.TRUNCATED || n == Tailer.REWRITTEN) {
                batches.release(batch);
                handleTruncation(t, n == Tailer.REWRITTEN);
                return true;
            }
            dispatch(t, batch);
            if (n == 0) {
                return progress;
            }
            progress = true;
            metrics.bytesRead.increment(n);
        }
        return progress;
    }

    private static void readFailed(Tailer t, IOException e) {
        if (t.pacing().readFailed()) {
            log.warn(
                    "reading {} failed: {}; trying again every round (logged once until it works)",
                    t.path(),
                    e.toString());
        }
    }

    private void handleTruncation(Tailer t, boolean rewritten) throws Publisher.StoppedException, InterruptedException {
        metrics.truncations.increment();
        log.warn(
                "file {} (copytruncate rotation?) path={} offset={}; reading it again from offset 0. Lines written "
                        + "between the last read and the truncation are lost",
                rewritten ? "was rewritten in place: its first line changed" : "shrank below its read offset",
                t.path(),
                t.dispatched());
        // The old content first: a held-back record, then every batch in flight, all committed under the old
        // identity. Only then the new identity at offset 0, written to disk at once.
        Batch batch = batches.start(t);
        t.flushAll(assembler, ticker.getAsLong());
        dispatch(t, batch);
        batches.awaitAllAcknowledged();
        commits.restartAtZero(t);
    }

    private void idleFlush(Tailer t) throws Publisher.StoppedException, InterruptedException {
        if (!t.hasPendingRecord()) {
            return;
        }
        Batch batch = batches.start(t);
        long now = ticker.getAsLong();
        if (t.hasPendingPiece() && tailers.ended(t, now)) {
            // Rotated away and read to its end: the rest of a split container line will never come to this file.
            t.flushAll(assembler, now);
        } else {
            t.flushIfIdle(now, assembler);
        }
        dispatch(t, batch);
    }

    /** Counts what the batch's lines came to, then hands it on (or frees it, when it is empty). */
    private void dispatch(Tailer t, Batch batch) throws InterruptedException {
        metrics.linesRead.increment(t.takeLinesSeen());
        metrics.linesTruncated.increment(assembler.takeTruncated());
        metrics.recordsFiltered.increment(assembler.takeFiltered());
        metrics.parseFailures.increment(assembler.takeParseFailures() + t.takeMalformed());
        metrics.timeParseFailures.increment(assembler.takeTimeFailures());
        batches.dispatch(t, batch);
    }

    /** Graceful stop: wait for batches in flight, publish held-back multiline records, persist the watermarks. */
    private void drain() {
        boolean interrupted = false;
        batches.retryUntil(System.nanoTime() + timing.drainTimeout().toNanos());
        try {
            batches.awaitAllAcknowledged();
            for (Tailer t : tailers.ordered()) {
                if (!t.hasPendingRecord()) {
                    continue;
                }
                Batch batch = batches.start(t);
                t.flushParser(assembler);
                dispatch(t, batch);
            }
            batches.awaitAllAcknowledged();
        } catch (Publisher.StoppedException e) {
            log.warn("the sink did not accept every record before the stop; unacknowledged lines will be read again "
                    + "on restart");
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (RuntimeException e) {
            log.error("unexpected failure while draining", e);
        }
        // The last steps run even when the stop was forced by an interrupt: an interrupted FileChannel would
        // refuse the final watermark write, and the publish thread must be stopped before the sink closes.
        interrupted |= Thread.interrupted();
        interrupted |= batches.closeThreads();
        commits.flushFinal();
        tailers.closeAll();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
