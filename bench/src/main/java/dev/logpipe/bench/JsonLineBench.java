package dev.logpipe.bench;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.parse.JsonLineReader;
import dev.logpipe.forwarder.internal.parse.LogfmtLineReader;
import dev.logpipe.forwarder.internal.parse.StructuredLine;
import dev.logpipe.forwarder.internal.parse.StructuredReader;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.SourceFile;
import dev.logpipe.forwarder.internal.tail.LineSplitter;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.RecordId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The tail thread's per-line work for {@code parser.format: json} and {@code logfmt} beside plain text: split a
 * chunk of the throughput benchmark's JSON lines, read each with {@link JsonLineReader} (the one-pass fast path)
 * and encode the record into a batch; the same for the records as logfmt lines ({@link LogfmtLineReader}); and
 * the same records as ~200-byte text lines, split and encoded; all as {@link ForwarderThroughputBench} writes
 * them. Figures are per line.
 *
 * <pre>java -jar bench/target/logpipe-bench.jar JsonLineBench</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class JsonLineBench {
    private static final int LINES = 4000;

    private static byte[] lines(Path dir, ForwarderThroughputBench.InputFormat format) throws IOException {
        Path file = dir.resolve(format.fileName());
        ForwarderThroughputBench.ensureInput(file, LINES, format);
        return Files.readAllBytes(file);
    }

    private byte[] json;
    private byte[] logfmt;
    private byte[] text;
    private Batch batch;
    private SourceFile source;
    private JsonLineReader reader;
    private LogfmtLineReader logfmtReader;
    private final StructuredLine line = new StructuredLine();

    @Setup
    public void setup() throws IOException {
        // The throughput benchmark's records, in each format, as its generator writes them.
        Path dir = Files.createTempDirectory("logpipe-jsonlinebench");
        try {
            json = lines(dir, ForwarderThroughputBench.InputFormat.JSON);
            logfmt = lines(dir, ForwarderThroughputBench.InputFormat.LOGFMT);
            text = lines(dir, ForwarderThroughputBench.InputFormat.TEXT);
        } finally {
            ForwarderThroughputBench.deleteRecursively(dir);
        }
        source = new SourceFile(
                "/var/log/app/app.log",
                "host-1",
                RecordId.fileScope("host-1", 64768, 1234, "abc"),
                null,
                "64768:1234:abc");
        batch = new Batch(Format.NDJSON);
        TimeParser rfc3339 = TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());
        reader = new JsonLineReader(KeyMapping.DEFAULT, null, rfc3339);
        logfmtReader = new LogfmtLineReader(KeyMapping.DEFAULT, null, rfc3339);
    }

    /** Split, read each logfmt line, encode its record (format logfmt). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitReadEncodeLogfmt(Blackhole bh) {
        splitReadEncode(logfmt, logfmtReader, bh);
    }

    /** Splitting and reading the logfmt lines, without encoding. */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readLogfmt(Blackhole bh) {
        read(logfmt, logfmtReader, bh);
    }

    /** Split, read each JSON line, encode its record (what the tail thread does per line with format json). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitReadEncodeJson(Blackhole bh) {
        splitReadEncode(json, reader, bh);
    }

    /** Splitting and reading the JSON lines, without encoding. */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readJson(Blackhole bh) {
        read(json, reader, bh);
    }

    private void splitReadEncode(byte[] lines, StructuredReader r, Blackhole bh) {
        batch.reset(source, 0);
        new LineSplitter(256 * 1024, 0).feed(lines, 0, lines.length, (bytes, off, len, start, end, truncated) -> {
            r.read(bytes, off, len, Map.of(), line); // an invalid line is encoded with its error, as in the tail
            batch.add(bytes, off, len, start, end, end, 1, truncated, null, line, line.time(), 0);
        });
        bh.consume(batch.wire().size());
    }

    private void read(byte[] lines, StructuredReader r, Blackhole bh) {
        new LineSplitter(256 * 1024, 0)
                .feed(
                        lines,
                        0,
                        lines.length,
                        (bytes, off, len, start, end, truncated) ->
                                bh.consume(r.read(bytes, off, len, Map.of(), line)));
    }

    /** The same records as text lines: split and encode (the plain-text record path). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitEncodeText(Blackhole bh) {
        batch.reset(source, 0);
        new LineSplitter(256 * 1024, 0)
                .feed(
                        text,
                        0,
                        text.length,
                        (bytes, off, len, start, end, truncated) ->
                                batch.add(bytes, off, len, start, end, 1, truncated, null));
        bh.consume(batch.wire().size());
    }
}
