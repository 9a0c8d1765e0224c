package dev.logpipe.forwarder;

import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.forwarder.internal.sink.Sinks;
import dev.logpipe.forwarder.internal.tail.TailLoops;
import dev.logpipe.forwarder.internal.watermark.FlushPolicy;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.Watermark;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.CountDownLatch;

/**
 * The forwarder's tail loop running in the test JVM on real files under {@code dir}, with the sink the
 * config names (or a given one). For tests of the loop and the sinks that need to look at the watermark
 * store and metrics directly; process-level behaviour is tested with a child JVM in the e2e package.
 */
public final class RunningLoop implements AutoCloseable {
    /** Fast polling, state in ./wm.json written after every acknowledgement, sources ./logs/*.log. */
    public static final String WATCH = """
            watch:
              poll: 20ms
              scan_interval: 50ms
              state:
                path: ./wm.json
                flush_interval: 0
              sources:
                - path: ./logs
                  patterns: ["*.log"]
            """;

    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final ForwarderMetrics metrics;
    private final Sink sink;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;

    private RunningLoop(
            ForwarderConfig config,
            WatermarkStore store,
            PublishedJournal journal,
            ForwarderMetrics metrics,
            Sink sink) {
        this.store = store;
        this.journal = journal;
        this.metrics = metrics;
        this.sink = sink;
        this.thread = new Thread(
                TailLoops.create(
                        config, new TailLoops.Watermarks(store, journal), sink, metrics, stop, TailLoops.Clocks.SYSTEM),
                "test-tail-loop");
    }

    /** Starts the loop with the sink that {@code yaml} configures. */
    public static RunningLoop start(Path dir, String yaml) throws Exception {
        return start(dir, yaml, null);
    }

    /** Starts the loop with {@code sink} (a test's own fake), or the configured sink when it is null. */
    public static RunningLoop start(Path dir, String yaml, Sink sink) throws Exception {
        ForwarderConfig config = new ConfigLoader(dir).parse(yaml, "test");
        ForwarderConfig.State state = config.watch().state();
        WatermarkStore store = WatermarkStore.open(
                state.path(),
                new FlushPolicy(state.flushInterval(), state.flushEvery()),
                WatermarkStore.OnCorrupt.REFUSE,
                InstantSource.system());
        PublishedJournal journal =
                PublishedJournal.open(state.path().resolveSibling(state.path().getFileName() + ".published"), 64);
        ForwarderMetrics metrics = new ForwarderMetrics(new SimpleMeterRegistry());
        Sink s = sink != null ? sink : Sinks.create(config.sink(), n -> metrics.recordsDeadLettered.increment(n));
        RunningLoop loop = new RunningLoop(config, store, journal, metrics, s);
        loop.thread.start();
        return loop;
    }

    public WatermarkStore store() {
        return store;
    }

    public ForwarderMetrics metrics() {
        return metrics;
    }

    /** The committed watermark of {@code file}, 0 when it has none yet. */
    public long watermark(Path file) {
        Watermark w = store.get(file.toString());
        return w == null ? 0 : w.offset();
    }

    /** Stops gracefully (drain, final watermark write) and closes sink and state. */
    @Override
    public void close() throws InterruptedException, IOException {
        stop.countDown();
        thread.join(20_000);
        sink.close();
        journal.close();
        store.close();
    }
}
