package dev.logpipe.forwarder;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.metrics.MetricsServer;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.forwarder.internal.sink.Sinks;
import dev.logpipe.forwarder.internal.spool.SpoolingSink;
import dev.logpipe.forwarder.internal.tail.TailLoop;
import dev.logpipe.forwarder.internal.tail.TailLoops;
import dev.logpipe.forwarder.internal.watermark.FlushPolicy;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running log-forwarder: watermark store, sink, metrics endpoint and the tail loop on its own thread.
 * {@link #close} stops it gracefully (publish held-back records, write the watermarks) and is idempotent.
 */
public final class Forwarder implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Forwarder.class);
    private static final int JOURNAL_SLOTS = 16_384;

    /** How to treat an existing watermark file at startup. */
    public enum StartMode {
        RESUME,
        RESET_IF_CORRUPT
    }

    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final Sink sink;
    private final MetricsServer metricsServer;
    private final PrometheusMeterRegistry registry;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean closed;

    private Forwarder(
            WatermarkStore store,
            PublishedJournal journal,
            Sink sink,
            MetricsServer metricsServer,
            PrometheusMeterRegistry registry,
            TailLoopFactory loop) {
        this.store = store;
        this.journal = journal;
        this.sink = sink;
        this.metricsServer = metricsServer;
        this.registry = registry;
        this.thread = new Thread(loop.create(stop), "log-forwarder-tail");
    }

    private interface TailLoopFactory {
        TailLoop create(CountDownLatch stop);
    }

    /**
     * Opens the state, the sink and the metrics endpoint, then starts tailing.
     *
     * @throws StateException the watermark file is corrupt (and not to be reset) or used by another process
     * @throws IOException    the sink, state directory or metrics address cannot be opened
     */
    public static Forwarder start(ForwarderConfig config, StartMode mode) throws StateException, IOException {
        List<Closeable> opened = new ArrayList<>();
        try {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            ForwarderMetrics metrics = new ForwarderMetrics(registry);
            ForwarderConfig.State state = config.watch().state();
            WatermarkStore store = WatermarkStore.open(
                    state.path(),
                    new FlushPolicy(state.flushInterval(), state.flushEvery()),
                    mode == StartMode.RESET_IF_CORRUPT || state.resetOnCorrupt()
                            ? WatermarkStore.OnCorrupt.RESET
                            : WatermarkStore.OnCorrupt.REFUSE,
                    InstantSource.system());
            opened.add(store);
            Path journalPath = store.path().resolveSibling(store.path().getFileName() + ".published");
            PublishedJournal journal = PublishedJournal.open(journalPath, JOURNAL_SLOTS);
            opened.add(journal);
            MetricsServer server = null;
            if (config.metrics().listen() != null) {
                server = MetricsServer.start(config.metrics().listen(), registry);
                opened.add(server);
            }
            Sink sink = Sinks.create(config.sink(), n -> metrics.recordsDeadLettered.increment(n));
            opened.add(sink);
            if (config.sink().spool() != null) {
                Sink target = sink;
                sink = SpoolingSink.start(config.sink().spool(), target, metrics);
                opened.remove(target); // from now on the spool closes the sink it delivers to
                opened.add(sink);
            }
            Sink tailSink = sink;
            Forwarder f = new Forwarder(
                    store,
                    journal,
                    sink,
                    server,
                    registry,
                    stop -> TailLoops.create(
                            config,
                            new TailLoops.Watermarks(store, journal),
                            tailSink,
                            metrics,
                            stop,
                            TailLoops.Clocks.SYSTEM));
            log.info(
                    "log forwarder started state_path={} sink={} sources={} parser={} metrics={}",
                    store.path(),
                    sink.describe(),
                    config.watch().sources().size(),
                    config.parser().type().name().toLowerCase(Locale.ROOT),
                    server == null ? "off" : "http://" + hostPort(server.address()) + "/metrics");
            f.thread.start();
            return f;
        } catch (StateException | IOException | RuntimeException e) {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Blocks until the tail loop has ended (after {@link #close} or a fatal error). */
    public void awaitStopped() throws InterruptedException {
        thread.join();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop.countDown();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (thread.isAlive()) {
                log.warn("tail loop did not stop within 30s; interrupting it");
                thread.interrupt();
                thread.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(sink);
        closeQuietly(journal);
        closeQuietly(store);
        if (metricsServer != null) {
            metricsServer.close();
        }
        log.info("log forwarder stopped state_path={}", store.path());
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            log.warn("closing {} failed: {}", c, e.toString());
        }
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }
}
