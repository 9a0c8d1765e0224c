package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.process.RecordFilter;
import dev.logpipe.forwarder.internal.process.Transformer;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Format;
import dev.logpipe.forwarder.internal.sink.Publisher;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.forwarder.internal.time.TimeLayout;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
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
    private static final int BATCHES = 3;
    /** How long a graceful stop keeps trying to publish held-back records. */
    public static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(5);

    /** Timing knobs of the loop. */
    public record Timing(Duration poll, Duration scanInterval, Duration multilineFlush, Duration drainTimeout) {}

    private final Tailers tailers;
    private final PublishLane lane;
    /** Threads that decode and encode the batches of structured and container files, or null (this thread does). */
    private final ParseThreads parse;

    private final RecordAssembler assembler;
    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final ForwarderMetrics metrics;
    private final CountDownLatch stop;
    private final LongSupplier ticker;
    private final Timing timing;
    private final ByteBuffer buffer;
    private final ArrayDeque<Batch> free = new ArrayDeque<>();
    private int inFlight;
    private long rounds;
    private boolean flushFailing;

    /** Wires the loop for one forwarder; the caller runs it on its own thread and owns {@code stop}. */
    public static TailLoop create(
            ForwarderConfig config,
            WatermarkStore store,
            PublishedJournal journal,
            Sink sink,
            ForwarderMetrics metrics,
            CountDownLatch stop,
            LongSupplier ticker) {
        return create(config, store, journal, sink, metrics, stop, ticker, InstantSource.system());
    }

    /** The same with the wall clock that infers the year of syslog timestamps. */
    public static TailLoop create(
            ForwarderConfig config,
            WatermarkStore store,
            PublishedJournal journal,
            Sink sink,
            ForwarderMetrics metrics,
            CountDownLatch stop,
            LongSupplier ticker,
            InstantSource clock) {
        ForwarderConfig.Parser top = config.parser();
        Map<ForwarderConfig.Parser, FileParsers> bySource = new IdentityHashMap<>();
        FileParsers topParsers = new FileParsers(top);
        Duration multilineFlush = Duration.ZERO;
        for (ForwarderConfig.Parser p : parsers(config)) {
            bySource.put(p, p == top ? topParsers : new FileParsers(p));
            if (p.type() == ForwarderConfig.ParserType.MULTILINE
                    && (multilineFlush.isZero() || p.flushInterval().compareTo(multilineFlush) < 0)) {
                multilineFlush = p.flushInterval();
            }
        }
        Tailers tailers = new Tailers(
                new SourceScanner(config.watch().sources()),
                store,
                journal,
                metrics,
                src -> bySource.get(src.parserOr(top)),
                config.host(),
                config.watch().rotateWait().toNanos());
        ForwarderConfig.EventTime et = config.transform().eventTime();
        RecordDecoder.FailureLog failures = new RecordDecoder.FailureLog();
        Supplier<RecordDecoder> decoders = () -> new RecordDecoder(
                c -> c.newReader(et.field(), et.newParser(clock)),
                new RecordAssembler.EventTimes(
                        et.field(),
                        et.newParser(clock),
                        et.layout() == TimeLayout.PATTERN
                                ? "pattern \"" + et.pattern() + "\""
                                : et.layout().configName()),
                failures);
        RecordAssembler assembler = new RecordAssembler(
                new RecordFilter(config.filter().include(), config.filter().exclude()),
                new Transformer(config.transform()),
                decoders.get());
        int threads = config.watch().parseThreads();
        ParseThreads parse = threads == 0 ? null : new ParseThreads(threads, BATCHES + threads, decoders, metrics);
        Timing timing = new Timing(config.watch().poll(), config.watch().scanInterval(), multilineFlush, DRAIN_TIMEOUT);
        return new TailLoop(
                tailers,
                new Publisher(sink, metrics, stop),
                parse,
                assembler,
                store,
                journal,
                metrics,
                stop,
                ticker,
                timing,
                (int) config.watch().readBufferBytes(),
                sink.format());
    }

    /** The top-level parser and every source's own. */
    private static List<ForwarderConfig.Parser> parsers(ForwarderConfig config) {
        List<ForwarderConfig.Parser> all = new ArrayList<>();
        all.add(config.parser());
        for (ForwarderConfig.Source s : config.watch().sources()) {
            if (s.parser() != null) {
                all.add(s.parser());
            }
        }
        return all;
    }

    TailLoop(
            Tailers tailers,
            Publisher publisher,
            ParseThreads parse,
            RecordAssembler assembler,
            WatermarkStore store,
            PublishedJournal journal,
            ForwarderMetrics metrics,
            CountDownLatch stop,
            LongSupplier ticker,
            Timing timing,
            int readBufferBytes,
            Format format) {
        this.tailers = tailers;
        this.parse = parse;
        int batches = parse == null ? BATCHES : BATCHES + parse.count();
        this.lane = new PublishLane(publisher, batches);
        this.assembler = assembler;
        this.store = store;
        this.journal = journal;
        this.metrics = metrics;
        this.stop = stop;
        this.ticker = ticker;
        this.timing = timing;
        this.buffer = ByteBuffer.allocate(readBufferBytes);
        for (int i = 0; i < batches; i++) {
            free.push(new Batch(format));
        }
    }

    @Override
    public void run() {
        if (parse != null) {
            parse.start();
        }
        lane.start();
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
            awaitAllAcknowledged();
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
            if (t.dueForPoll(rounds)) {
                boolean got = pump(t);
                t.polled(got);
                progress |= got;
            }
            idleFlush(t);
        }
        rounds++;
        collectAcknowledgements(0);
        flushWatermarksIfDue();
        if (!progress) {
            long wait = Math.min(timing.poll().toNanos(), Math.max(0, nextScan - ticker.getAsLong()));
            if (timing.multilineFlush().toNanos() > 0) {
                wait = Math.min(wait, Math.max(timing.multilineFlush().toNanos() / 2, 1_000_000));
            }
            wait = Math.max(wait, 1_000_000);
            if (inFlight > 0) {
                collectAcknowledgements(wait);
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
            Batch batch = start(t);
            int n;
            try {
                n = t.read(buffer, assembler, ticker.getAsLong());
            } catch (IOException e) {
                release(batch);
                readFailed(t, e);
                return progress;
            } catch (RuntimeException e) {
                // A bug on some input: nothing of this chunk counts; read it again from the last dispatched record.
                release(batch);
                t.rewindToDispatched();
                throw e;
            }
            if (t.readRecovered()) {
                log.info("reading {} works again", t.path());
            }
            if (n == Tailer.TRUNCATED || n == Tailer.REWRITTEN) {
                release(batch);
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
        if (t.readFailed()) {
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
        Batch batch = start(t);
        t.flushAll(assembler, ticker.getAsLong());
        dispatch(t, batch);
        awaitAllAcknowledged();
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

    private void idleFlush(Tailer t) throws Publisher.StoppedException, InterruptedException {
        if (!t.hasPendingRecord()) {
            return;
        }
        Batch batch = start(t);
        long now = ticker.getAsLong();
        if (t.hasPendingPiece() && tailers.ended(t, now)) {
            // Rotated away and read to its end: the rest of a split container line will never come to this file.
            t.flushAll(assembler, now);
        } else {
            t.flushIfIdle(now, assembler);
        }
        dispatch(t, batch);
    }

    /** Takes a free batch (waiting for an acknowledgement if all are in flight) and points the assembler at it. */
    private Batch start(Tailer t) throws Publisher.StoppedException, InterruptedException {
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

    private void release(Batch batch) {
        free.push(batch);
    }

    /** Hands the batch to the publish lane if it carries records or moves the commit offset. */
    private void dispatch(Tailer t, Batch batch) throws InterruptedException {
        metrics.linesRead.increment(t.takeLinesSeen());
        metrics.linesTruncated.increment(assembler.takeTruncated());
        metrics.recordsFiltered.increment(assembler.takeFiltered());
        metrics.parseFailures.increment(assembler.takeParseFailures() + t.takeMalformed());
        metrics.timeParseFailures.increment(assembler.takeTimeFailures());
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
    private void collectAcknowledgements(long timeoutNanos) throws Publisher.StoppedException, InterruptedException {
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
            commit(f.tailer, f.batch);
        }
    }

    private void awaitAllAcknowledged() throws Publisher.StoppedException, InterruptedException {
        while (inFlight > 0) {
            collectAcknowledgements(Long.MAX_VALUE);
        }
    }

    private void commit(Tailer t, Batch batch) {
        metrics.recordsPublished.increment(batch.size());
        long replayed = t.replayedLines(batch);
        if (replayed > 0) {
            metrics.linesReplayed.increment(replayed);
        }
        if (batch.commitOffset() != t.committed()) {
            t.commit(batch.commitOffset(), journal);
            store.put(t.path(), t.watermark());
            store.countUpdates(Math.max(0, batch.size() + batch.skipped() - 1));
            flushWatermarksIfDue(); // flush_interval 0 / flush_every: right after the acknowledgement
        }
    }

    private void flushWatermarksIfDue() {
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

    /** Graceful stop: wait for batches in flight, publish held-back multiline records, persist the watermarks. */
    private void drain() {
        boolean interrupted = false;
        lane.retryUntil(System.nanoTime() + timing.drainTimeout().toNanos());
        try {
            awaitAllAcknowledged();
            for (Tailer t : tailers.ordered()) {
                if (!t.hasPendingRecord()) {
                    continue;
                }
                Batch batch = start(t);
                t.flushParser(assembler);
                dispatch(t, batch);
            }
            awaitAllAcknowledged();
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
        try {
            lane.close();
        } catch (InterruptedException e) {
            interrupted = true;
        }
        try {
            if (parse != null) {
                parse.close(); // after the lane: it may still wait for a batch being encoded
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
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
        tailers.closeAll();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
