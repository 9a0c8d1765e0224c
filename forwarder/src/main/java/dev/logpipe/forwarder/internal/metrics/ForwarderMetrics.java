package dev.logpipe.forwarder.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Every metric of the forwarder, prefix {@code log_forwarder_} (docs/monitoring.md lists them). Counters
 * are incremented per batch, not per line, to stay off the hot path. Thread-safe.
 */
public final class ForwarderMetrics {
    private final MeterRegistry registry;
    public final Counter linesRead;
    public final Counter bytesRead;
    public final Counter recordsPublished;
    public final Counter recordsFiltered;
    public final Counter linesTruncated;
    public final Counter linesReplayed;
    public final Counter rotations;
    public final Counter truncations;
    public final Counter gapBytes;
    public final Counter watermarkFlushes;
    public final Counter watermarkFlushFailures;
    public final Counter publishFailures;
    public final Counter recordsDeadLettered;
    public final Counter timeParseFailures;
    public final Counter parseFailures;
    public final Timer publishLatency;
    public final Counter spoolDelivered;
    private final AtomicInteger filesTailed = new AtomicInteger();
    private final AtomicInteger sinkUp = new AtomicInteger(1);
    private final MultiGauge lag;

    public ForwarderMetrics(MeterRegistry registry) {
        this.registry = registry;
        linesRead = counter("log_forwarder.lines.read", "Complete lines read from source files");
        bytesRead = counter("log_forwarder.bytes.read", "Bytes read from source files");
        recordsPublished = counter("log_forwarder.records.published", "Records acknowledged by the sink");
        recordsFiltered = counter(
                "log_forwarder.records.filtered",
                "Records not published because a filter or transform skipped them (they still advance the watermark)");
        linesTruncated = counter(
                "log_forwarder.lines.truncated",
                "Records cut to parser.max_record_bytes or parser.multiline.max_lines");
        linesReplayed = counter(
                "log_forwarder.lines.replayed",
                "Lines published again after a restart that the previous run had already published");
        rotations = counter("log_forwarder.rotations", "Rename rotations detected (a new file took a watched path)");
        truncations = counter(
                "log_forwarder.truncations",
                "Files that shrank below their read offset (copytruncate); reading restarted at 0");
        gapBytes = counter(
                "log_forwarder.gap.bytes",
                "Bytes of rotated files that were deleted before they were read (lost, at least this many)");
        watermarkFlushes = counter("log_forwarder.watermark.flushes", "Watermark file writes");
        watermarkFlushFailures = counter("log_forwarder.watermark.flush.failures", "Failed watermark file writes");
        recordsDeadLettered = counter(
                "log_forwarder.records.dead_lettered",
                "Records the sink rejected permanently (HTTP 4xx other than 429) and wrote to the dead-letter file");
        timeParseFailures = counter(
                "log_forwarder.time.parse.failures",
                "Records whose timestamp did not parse in the configured layout (shipped without event_time)");
        parseFailures = counter(
                "log_forwarder.parse.failures",
                "Lines that were not valid JSON/logfmt, or not in the container runtime's format (shipped as text)");
        publishFailures = counter("log_forwarder.sink.publish.failures", "Failed sink publish attempts (retried)");
        spoolDelivered = counter(
                "log_forwarder.spool.records.delivered",
                "Records the disk spool delivered to the sink (acknowledged by it); 0 without a spool");
        publishLatency = Timer.builder("log_forwarder.sink.publish")
                .description("Time to publish one batch")
                .register(registry);
        lag = MultiGauge.builder("log_forwarder.lag.bytes")
                .description("Bytes in a tailed file not yet acknowledged by the sink")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("log_forwarder.files.tailed", filesTailed, AtomicInteger::get)
                .description("Files open for tailing")
                .register(registry);
        Gauge.builder("log_forwarder.sink.up", sinkUp, AtomicInteger::get)
                .description("1 while the sink accepts batches, 0 while publishing is failing")
                .register(registry);
    }

    private Counter counter(String name, String help) {
        return Counter.builder(name).description(help).register(registry);
    }

    /** Gauges of the disk spool: bytes on disk, records not yet delivered, records dropped by when_full. */
    public void bindSpool(LongSupplier bytes, LongSupplier pending, LongSupplier dropped) {
        Gauge.builder("log_forwarder.spool.bytes", bytes, LongSupplierGauge::value)
                .baseUnit("bytes")
                .description("Bytes in the disk spool's segment files")
                .register(registry);
        Gauge.builder("log_forwarder.spool.records", pending, LongSupplierGauge::value)
                .description("Records in the disk spool not yet acknowledged by the sink")
                .register(registry);
        FunctionCounter.builder("log_forwarder.spool.records.dropped", dropped, LongSupplierGauge::value)
                .description("Undelivered records deleted because the spool was full (when_full: drop_oldest)")
                .register(registry);
    }

    private static final class LongSupplierGauge {
        static double value(LongSupplier s) {
            return s.getAsLong();
        }
    }

    public void fileOpened() {
        filesTailed.incrementAndGet();
    }

    public void fileClosed() {
        filesTailed.decrementAndGet();
    }

    public void sinkUp(boolean up) {
        sinkUp.set(up ? 1 : 0);
    }

    /**
     * Replaces the per-file lag series with one row per open file, labelled with its current path
     * (bytes in the file not yet acknowledged by the sink). Called after every scan, so renames and
     * closed files are reflected within one scan interval.
     */
    public void lag(Map<String, Supplier<Number>> lagByPath) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        lagByPath.forEach((path, lag) -> rows.add(MultiGauge.Row.of(Tags.of("path", path), lag)));
        lag.register(rows, true);
    }
}
