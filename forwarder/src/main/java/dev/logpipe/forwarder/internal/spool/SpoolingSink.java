package dev.logpipe.forwarder.internal.spool;

import dev.logpipe.forwarder.StateException;
import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Publisher;
import dev.logpipe.forwarder.internal.sink.Sink;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk spool as a sink (stage DISK_SPOOL, docs/architecture.md): {@link #publish} returns once the batch is fsynced in the
 * {@link Spool}, so watermarks advance then; a drainer thread delivers the spooled batches, in order, to the
 * configured sink, retrying with the usual backoff, and confirms each to the spool only after that sink
 * acknowledged it. The spool survives a crash: frames not yet confirmed are delivered after the restart.
 */
public final class SpoolingSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(SpoolingSink.class);

    private final Spool spool;
    private final Sink target;
    private final ForwarderMetrics metrics;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread drainer;

    private SpoolingSink(Spool spool, Sink target, ForwarderMetrics metrics) {
        this.spool = spool;
        this.target = target;
        this.metrics = metrics;
        this.drainer = new Thread(this::drain, "log-forwarder-spool");
        this.drainer.setDaemon(true);
    }

    /**
     * Opens the spool (recovering an earlier run's frames) and starts delivering to {@code target}.
     *
     * @throws StateException a spool file is corrupt
     */
    public static SpoolingSink start(ForwarderConfig.Spool config, Sink target, ForwarderMetrics metrics)
            throws IOException, StateException {
        Spool spool = Spool.open(config.path(), config.maxBytes(), config.segmentBytes(), config.whenFull());
        SpoolingSink s = new SpoolingSink(spool, target, metrics);
        metrics.bindSpool(spool::bytes, spool::pendingRecords, spool::droppedRecords);
        s.drainer.start();
        return s;
    }

    @Override
    public void publish(Batch batch) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        spool.append(SpoolFrames.encode(batch), batch.size());
    }

    private void drain() {
        Publisher publisher = new Publisher(
                target, metrics, stop, "records stay in the spool " + spool.path() + " until it recovers", "spool");
        Batch batch = new Batch(target.format());
        Spool.Frame frame = null;
        boolean delivered = false;
        long backoffMs = 0;
        while (stop.getCount() > 0) {
            try {
                if (frame == null) {
                    frame = spool.next(Duration.ofMillis(250));
                    delivered = false;
                    if (frame == null) {
                        continue;
                    }
                }
                if (!delivered) {
                    if (!decode(frame, batch)) {
                        frame = null;
                        continue;
                    }
                    publisher.publish(batch, Long.MAX_VALUE);
                    delivered = true;
                }
                spool.acknowledge(frame);
                metrics.spoolDelivered.increment(frame.records());
                frame = null;
                if (backoffMs > 0) {
                    log.info("spool {} works again", spool.path());
                    backoffMs = 0;
                }
            } catch (Publisher.StoppedException e) {
                return; // stopping while the sink fails: the frame stays in the spool for the next run
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException | RuntimeException e) {
                // The spool's own files failed (disk full, I/O error): keep the frame and try again.
                if (backoffMs == 0) {
                    log.error(
                            "spool {} failed: {}; retrying with backoff up to 30s (records stay in the spool)",
                            spool.path(),
                            e.toString(),
                            e);
                }
                backoffMs = Math.min(Math.max(100, backoffMs * 2), 30_000);
                try {
                    if (stop.await(backoffMs, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Refills {@code batch} from the frame; a frame that cannot be read is given up, counted and logged. */
    private boolean decode(Spool.Frame frame, Batch batch) throws IOException {
        try {
            SpoolFrames.decode(frame.payload(), batch);
            return true;
        } catch (IOException | RuntimeException e) {
            log.error(
                    "spool frame at segment {} offset {} cannot be read ({}); its {} records are dropped and "
                            + "counted in log_forwarder_spool_records_dropped_total",
                    frame.segment(),
                    frame.offset(),
                    e.toString(),
                    frame.records());
            spool.discard(frame);
            return false;
        }
    }

    @Override
    public Format format() {
        return target.format();
    }

    @Override
    public String describe() {
        return "spool " + spool.path() + " -> " + target.describe();
    }

    /** Stops delivering (the current delivery gets a few seconds to finish); the spool keeps what is left. */
    @Override
    public void close() throws IOException {
        stop.countDown();
        try {
            drainer.join(TimeUnit.SECONDS.toMillis(10));
            if (drainer.isAlive()) {
                drainer.interrupt();
                drainer.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            target.close();
        } finally {
            spool.close();
        }
    }
}
