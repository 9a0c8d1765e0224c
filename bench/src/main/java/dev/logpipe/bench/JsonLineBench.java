package dev.logpipe.bench;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.internal.parse.JsonLineReader;
import dev.logpipe.forwarder.internal.parse.LogfmtLineReader;
import dev.logpipe.forwarder.internal.parse.StructuredLine;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Format;
import dev.logpipe.forwarder.internal.tail.LineSplitter;
import dev.logpipe.forwarder.internal.time.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
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
 * the same records as ~200-byte text lines, split and encoded. Figures are per line.
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

    private byte[] json;
    private byte[] logfmt;
    private byte[] text;
    private Batch batch;
    private Batch.Source source;
    private JsonLineReader reader;
    private LogfmtLineReader logfmtReader;
    private final StructuredLine line = new StructuredLine();

    @Setup
    public void setup() {
        Random r = new Random(42);
        String[] paths = {"/api/v1/orders", "/api/v1/users/profile", "/checkout", "/static/app.js", "/healthz"};
        String[] levels = {"INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"};
        StringBuilder j = new StringBuilder();
        StringBuilder l = new StringBuilder();
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            String time = "2026-12-01T08:10:" + String.format(Locale.ROOT, "%02d.%03d", i / 100 % 60, i % 1000) + "Z";
            String level = levels[r.nextInt(levels.length)];
            int thread = r.nextInt(64);
            String path = paths[r.nextInt(paths.length)];
            int status = r.nextInt(10) == 0 ? 500 : 200;
            int duration = r.nextInt(900);
            String trace = Long.toHexString(r.nextLong());
            int user = r.nextInt(100_000);
            StringBuilder pad = new StringBuilder();
            StringBuilder line = new StringBuilder()
                    .append(time)
                    .append(' ')
                    .append(level)
                    .append(" [http-nio-8080-exec-")
                    .append(thread)
                    .append("] c.e.web.AccessLog - method=GET path=")
                    .append(path)
                    .append(" status=")
                    .append(status)
                    .append(" duration_ms=")
                    .append(duration)
                    .append(" trace_id=")
                    .append(trace)
                    .append(" user=\"u")
                    .append(user)
                    .append("\" seq=")
                    .append(i);
            while (line.length() + pad.length() < 199) {
                pad.append(' ').append((char) ('a' + r.nextInt(26)));
            }
            t.append(line).append(pad).append('\n');
            j.append("{\"time\":\"")
                    .append(time)
                    .append("\",\"level\":\"")
                    .append(level)
                    .append("\",\"thread\":\"http-nio-8080-exec-")
                    .append(thread)
                    .append("\",\"logger\":\"c.e.web.AccessLog\",\"msg\":\"GET ")
                    .append(path)
                    .append("\",\"http\":{\"method\":\"GET\",\"path\":\"")
                    .append(path)
                    .append("\",\"status\":")
                    .append(status)
                    .append("},\"duration_ms\":")
                    .append(duration)
                    .append(",\"trace_id\":\"")
                    .append(trace)
                    .append("\",\"user\":\"u")
                    .append(user)
                    .append("\",\"seq\":")
                    .append(i)
                    .append(",\"pad\":\"")
                    .append(pad.toString().trim())
                    .append("\"}\n");
            l.append("time=")
                    .append(time)
                    .append(" level=")
                    .append(level)
                    .append(" thread=http-nio-8080-exec-")
                    .append(thread)
                    .append(" logger=c.e.web.AccessLog msg=\"GET ")
                    .append(path)
                    .append("\" method=GET path=")
                    .append(path)
                    .append(" status=")
                    .append(status)
                    .append(" duration_ms=")
                    .append(duration)
                    .append(" trace_id=")
                    .append(trace)
                    .append(" user=u")
                    .append(user)
                    .append(" seq=")
                    .append(i)
                    .append(" pad=\"")
                    .append(pad.toString().trim())
                    .append("\"\n");
        }
        json = j.toString().getBytes(StandardCharsets.UTF_8);
        logfmt = l.toString().getBytes(StandardCharsets.UTF_8);
        text = t.toString().getBytes(StandardCharsets.UTF_8);
        source = new Batch.Source(
                "/var/log/app/app.log",
                "host-1",
                RecordId.fileScope("host-1", 64768, 1234, "abc"),
                null,
                "64768:1234:abc");
        batch = new Batch(Format.NDJSON);
        TimeParser rfc3339 = TimeLayout.RFC3339.newParser(ZoneOffset.UTC, null, InstantSource.system());
        reader = new JsonLineReader(KeyMapping.DEFAULT, null, rfc3339);
        logfmtReader = new LogfmtLineReader(KeyMapping.DEFAULT, null, rfc3339);
    }

    /** Split, read each logfmt line, encode its record (format logfmt). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitReadEncodeLogfmt(Blackhole bh) {
        batch.reset(source, 0);
        new LineSplitter(256 * 1024, 0).feed(logfmt, 0, logfmt.length, (bytes, off, len, start, end, truncated) -> {
            logfmtReader.read(bytes, off, len, Map.of(), line);
            batch.add(bytes, off, len, start, end, end, 1, truncated, null, line, line.time(), 0);
        });
        bh.consume(batch.wire().size());
    }

    /** Only reading the logfmt lines (no split, no encode). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readLogfmt(Blackhole bh) {
        new LineSplitter(256 * 1024, 0)
                .feed(
                        logfmt,
                        0,
                        logfmt.length,
                        (bytes, off, len, start, end, truncated) ->
                                bh.consume(logfmtReader.read(bytes, off, len, Map.of(), line)));
    }

    /** Split, read each JSON line, encode its record (what the tail thread does per line with format json). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitReadEncodeJson(Blackhole bh) {
        batch.reset(source, 0);
        new LineSplitter(256 * 1024, 0).feed(json, 0, json.length, (bytes, off, len, start, end, truncated) -> {
            reader.read(bytes, off, len, Map.of(), line); // an invalid line is encoded with its error, as in the tail
            batch.add(bytes, off, len, start, end, end, 1, truncated, null, line, line.time(), 0);
        });
        bh.consume(batch.wire().size());
    }

    /** Only reading the JSON lines (no split, no encode). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readJson(Blackhole bh) {
        new LineSplitter(256 * 1024, 0)
                .feed(
                        json,
                        0,
                        json.length,
                        (bytes, off, len, start, end, truncated) ->
                                bh.consume(reader.read(bytes, off, len, Map.of(), line)));
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
