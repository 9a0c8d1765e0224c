package dev.logpipe.bench;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.SourceFile;
import dev.logpipe.forwarder.internal.tail.LineSplitter;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
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
 * The forwarder's per-line hot path in isolation: splitting a 1 MiB chunk of ~200-byte lines and encoding
 * each into a batch (NDJSON, or raw). Figures are per line.
 *
 * <pre>java -jar bench/target/logpipe-bench.jar HotPathBench</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HotPathBench {
    private static final int LINES = 5000;

    private byte[] chunk;
    private Batch ndjson;
    private Batch raw;
    private SourceFile source;

    @Setup
    public void setup() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            StringBuilder line =
                    new StringBuilder("2026-12-01T08:10:00.123Z INFO [http-nio-8080-exec-7] c.e.web.AccessLog - "
                            + "method=GET path=/api/v1/orders status=200 duration_ms=41 trace_id=7f2a9c1e4b3d4f0a user=\"u42\" seq="
                            + i);
            while (line.length() < 199) {
                line.append(" x");
            }
            b.append(line).append('\n');
        }
        chunk = b.toString().getBytes(StandardCharsets.UTF_8);
        source = new SourceFile(
                "/var/log/app/app.log",
                "host-1",
                RecordId.fileScope("host-1", 64768, 1234, "abc"),
                null,
                "64768:1234:abc");
        ndjson = new Batch(Format.NDJSON);
        raw = new Batch(Format.RAW);
    }

    private int fill(Batch batch) {
        batch.reset(source, 0);
        new LineSplitter(256 * 1024, 0)
                .feed(
                        chunk,
                        0,
                        chunk.length,
                        (bytes, off, len, start, end, truncated) ->
                                batch.add(bytes, off, len, start, end, 1, truncated, null));
        return batch.wire().size();
    }

    /** Split a chunk into lines and encode each as an NDJSON record (what the tail thread does per line). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitAndEncodeNdjson(Blackhole bh) {
        bh.consume(fill(ndjson));
    }

    /** The same with the raw format: splitting and copying only. */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public void splitAndCopyRaw(Blackhole bh) {
        bh.consume(fill(raw));
    }
}
