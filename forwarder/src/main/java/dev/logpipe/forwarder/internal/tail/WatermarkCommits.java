package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tail loop's watermark side: an acknowledged batch moves its file's watermark (and the published journal),
 * the watermark file is written when {@code flush_interval}/{@code flush_every} say so, after a truncation at once,
 * and a last time at a stop. A failed write is counted and logged, never fatal: the watermarks stay in memory.
 * Runs on the tail thread only.
 */
final class WatermarkCommits {
    /** The tail loop's logger: these lines are the loop's. */
    private static final Logger log = LoggerFactory.getLogger(TailLoop.class);

    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final ForwarderMetrics metrics;
    private boolean flushFailing;

    WatermarkCommits(WatermarkStore store, PublishedJournal journal, ForwarderMetrics metrics) {
        this.store = store;
        this.journal = journal;
        this.metrics = metrics;
    }

    /** Counts an acknowledged batch and moves its file's watermark to the batch's commit offset. */
    void commit(Tailer t, Batch batch) {
        metrics.recordsPublished.increment(batch.size());
        long replayed = t.replayedLines(batch);
        if (replayed > 0) {
            metrics.linesReplayed.increment(replayed);
        }
        if (batch.commitOffset() != t.committed()) {
            t.commit(batch.commitOffset(), journal);
            store.put(t.path(), t.watermark());
            store.countUpdates(Math.max(0, batch.size() + batch.skipped() - 1));
            flushIfDue(); // flush_interval 0 / flush_every: right after the acknowledgement
        }
    }

    void flushIfDue() {
        try {
            if (store.flushIfDue()) {
                metrics.watermarkFlushes.increment();
                if (flushFailing) {
                    flushFailing = false;
                    log.info("watermark file {} is being written again", store.path());
                }
            }
        } catch (IOException e) {
            metrics.watermarkFlushFailures.increment();
            if (!flushFailing) {
                flushFailing = true;
                log.warn(
                        "cannot write watermark file {}: {}; keeping watermarks in memory and retrying. A crash now "
                                + "re-sends more lines on restart",
                        store.path(),
                        e.toString());
            }
        }
    }

    /**
     * A truncated or rewritten file starts again at offset 0 under its new identity, written to disk at once. Every
     * batch of its old content must be committed before.
     */
    void restartAtZero(Tailer t) {
        try {
            t.restartAtZero(journal);
        } catch (IOException e) {
            log.warn("re-reading {} failed: {}", t.path(), e.toString());
        }
        t.commit(0, journal);
        store.put(t.path(), t.watermark());
        try {
            store.flush();
            metrics.watermarkFlushes.increment();
        } catch (IOException e) {
            metrics.watermarkFlushFailures.increment();
            log.warn(
                    "cannot write watermark file {} after the truncation of {}: {}",
                    store.path(),
                    t.path(),
                    e.toString());
        }
    }

    /** The last write at a stop. */
    void flushFinal() {
        try {
            store.flush();
            metrics.watermarkFlushes.increment();
        } catch (IOException e) {
            metrics.watermarkFlushFailures.increment();
            log.error(
                    "final write of watermark file {} failed: {}; lines since the last write will be sent again on "
                            + "restart",
                    store.path(),
                    e.toString());
        }
    }
}
