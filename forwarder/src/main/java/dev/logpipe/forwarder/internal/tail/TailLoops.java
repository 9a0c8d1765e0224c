package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.process.RecordFilter;
import dev.logpipe.forwarder.internal.process.Transformer;
import dev.logpipe.forwarder.internal.sink.Publisher;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Wires a {@link TailLoop} from the configuration: each source's parsers, the open files, the record assembler and
 * the decoders of the parse threads, the batches and the publish lane in front of the sink. Nothing is started here.
 * {@code create} runs once per forwarder; the watermark store and journal, and the two clocks, come as one value each.
 */
public final class TailLoops {
    private TailLoops() {}

    /** Where the loop's watermarks are kept: the store and the journal of published offsets. */
    public record Watermarks(WatermarkStore store, PublishedJournal journal) {
        public Watermarks {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(journal, "journal");
        }
    }

    /**
     * The loop's clocks: {@code ticker} (monotonic nanoseconds) paces polling and idle flushes, {@code wall} infers
     * the year of syslog timestamps.
     */
    public record Clocks(LongSupplier ticker, InstantSource wall) {
        /** {@code System.nanoTime} and the system clock. */
        public static final Clocks SYSTEM = new Clocks(System::nanoTime, InstantSource.system());

        public Clocks {
            Objects.requireNonNull(ticker, "ticker");
            Objects.requireNonNull(wall, "wall");
        }
    }

    /** Wires the loop for one forwarder; the caller runs it on its own thread and owns {@code stop}. */
    public static TailLoop create(
            ForwarderConfig config,
            Watermarks watermarks,
            Sink sink,
            ForwarderMetrics metrics,
            CountDownLatch stop,
            Clocks clocks) {
        WatermarkStore store = watermarks.store();
        PublishedJournal journal = watermarks.journal();
        InstantSource clock = clocks.wall();
        ForwarderConfig.Parser top = config.parser();
        Map<ForwarderConfig.Parser, FileParsers> bySource = new IdentityHashMap<>();
        FileParsers topParsers = new FileParsers(top, config.host());
        Duration multilineFlush = Duration.ZERO;
        for (ForwarderConfig.Parser p : parsers(config)) {
            bySource.put(p, p == top ? topParsers : new FileParsers(p, config.host()));
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
                config.watch().rotateWait().toNanos());
        ForwarderConfig.EventTime et = config.transform().eventTime();
        RecordDecoder.FailureLog failures = new RecordDecoder.FailureLog();
        Supplier<RecordDecoder> decoders = () -> new RecordDecoder(
                c -> c.newReader(et.field(), TimeParsers.of(et.layout(), et.zone(), et.pattern(), clock)),
                new RecordAssembler.EventTimes(
                        et.field(),
                        TimeParsers.of(et.layout(), et.zone(), et.pattern(), clock),
                        et.layout() == TimeLayout.PATTERN
                                ? "pattern \"" + et.pattern() + "\""
                                : et.layout().configName()),
                failures);
        RecordAssembler assembler = new RecordAssembler(
                new RecordFilter(config.filter().include(), config.filter().exclude()),
                new Transformer(config.transform()),
                decoders.get());
        int threads = config.watch().parseThreads();
        ParseThreads parse =
                threads == 0 ? null : new ParseThreads(threads, TailLoop.BATCHES + threads, decoders, metrics);
        TailLoop.Timing timing = new TailLoop.Timing(
                config.watch().poll(), config.watch().scanInterval(), multilineFlush, TailLoop.DRAIN_TIMEOUT);
        WatermarkCommits commits = new WatermarkCommits(store, journal, metrics);
        InFlightBatches batches =
                new InFlightBatches(new Publisher(sink, metrics, stop), parse, assembler, commits, sink.format());
        return new TailLoop(
                new TailLoop.Parts(tailers, batches, commits, assembler), metrics, stop, clocks.ticker(), timing, (int)
                        config.watch().readBufferBytes());
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
}
