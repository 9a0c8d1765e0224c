package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.parse.ContainerLines;
import dev.logpipe.forwarder.internal.parse.CriLines;
import dev.logpipe.forwarder.internal.parse.DockerLines;
import dev.logpipe.forwarder.internal.parse.JsonLineReader;
import dev.logpipe.forwarder.internal.parse.LineParser;
import dev.logpipe.forwarder.internal.parse.LogfmtLineReader;
import dev.logpipe.forwarder.internal.parse.StructuredReader;
import dev.logpipe.forwarder.internal.process.RecordFilter;
import dev.logpipe.forwarder.internal.process.Transformer;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.SourceFile;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A record rendered as a line in any format (JSON, logfmt, and JSON inside CRI and Docker lines split into
 * pieces at random points) and read back by the forwarder gives the same record.
 */
class FormatRoundTripPropertyTest {
    enum Format {
        JSON,
        LOGFMT,
        CRI_JSON,
        DOCKER_JSON
    }

    record Sample(
            String message,
            Level level,
            String service,
            String traceId,
            Long timeMillis,
            int offsetMinutes,
            Map<String, Object> fields,
            long runtimeMillis,
            List<Integer> cuts) {}

    private static final Set<String> TAKEN = Set.of(
            "message",
            "msg",
            "log",
            "level",
            "severity",
            "lvl",
            "time",
            "timestamp",
            "ts",
            "trace_id",
            "traceid",
            "span_id",
            "spanid",
            "service",
            "stream");

    @Provide
    Arbitrary<Sample> samples() {
        Arbitrary<String> text = Arbitraries.strings()
                .withCharRange('\u0000', '\uD7FF')
                .withChars('"', '\\', '=', ' ', '\n', '\t', '\u00e9', '\uFFFD')
                .ofMaxLength(40);
        Arbitrary<String> names = Arbitraries.strings()
                .withCharRange('a', 'z')
                .ofMinLength(1)
                .ofMaxLength(6)
                .filter(n -> !TAKEN.contains(n));
        Arbitrary<Object> values = Arbitraries.oneOf(
                text.map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.of(true, false).map(b -> (Object) b));
        Arbitrary<Map<String, Object>> fields = Arbitraries.maps(names, values).ofMaxSize(6);
        Arbitrary<Long> millis = Arbitraries.longs().between(0, 4_000_000_000_000L);
        return Combinators.combine(
                        text,
                        Arbitraries.of(Level.TRACE, Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR, Level.FATAL),
                        Arbitraries.strings()
                                .alpha()
                                .ofMinLength(1)
                                .ofMaxLength(8)
                                .injectNull(0.3),
                        Arbitraries.strings().numeric().ofLength(16).injectNull(0.5),
                        millis.injectNull(0.3),
                        Arbitraries.integers().between(-12 * 60, 14 * 60),
                        fields,
                        millis)
                .as((m, l, s, t, tm, off, f, rt) -> new Sample(m, l, s, t, tm, off, f, rt, List.of()))
                .flatMap(s -> Arbitraries.integers()
                        .between(1, 1000)
                        .list()
                        .ofMaxSize(4)
                        .map(c -> new Sample(
                                s.message,
                                s.level,
                                s.service,
                                s.traceId,
                                s.timeMillis,
                                s.offsetMinutes,
                                s.fields,
                                s.runtimeMillis,
                                c)));
    }

    @Property(tries = 400)
    void aLineInAnyFormatReadsBackAsTheSameRecord(@ForAll("samples") Sample s, @ForAll Format format) throws Exception {
        boolean logfmt = format == Format.LOGFMT;
        String appLine = logfmt ? logfmt(s) : json(s);
        List<byte[]> fileLines = switch (format) {
            case JSON, LOGFMT -> List.of(appLine.getBytes(StandardCharsets.UTF_8));
            case CRI_JSON -> cri(appLine, s);
            case DOCKER_JSON -> docker(appLine, s);
        };
        LogRecord r = readBack(fileLines, format);

        assertThat(r.message()).isEqualTo(s.message);
        assertThat(r.level()).isEqualTo(s.level);
        assertThat(r.service()).isEqualTo(s.service);
        assertThat(r.traceId()).isEqualTo(s.traceId);
        Instant expectedTime = s.timeMillis != null
                ? Instant.ofEpochMilli(s.timeMillis)
                : format == Format.CRI_JSON || format == Format.DOCKER_JSON
                        ? Instant.ofEpochMilli(s.runtimeMillis)
                        : null;
        assertThat(r.eventTime()).isEqualTo(expectedTime);
        Map<String, Object> fields = new LinkedHashMap<>(r.fields());
        assertThat(fields.remove("log.file.path")).isEqualTo("/logs/app.log");
        assertThat(fields.remove("log.offset")).isEqualTo(0L);
        if (format == Format.CRI_JSON || format == Format.DOCKER_JSON) {
            assertThat(fields.remove("stream")).isEqualTo("stdout");
        }
        Map<String, Object> expected = new LinkedHashMap<>();
        s.fields.forEach((k, v) -> expected.put(k, logfmt ? String.valueOf(v) : v));
        assertThat(fields).isEqualTo(expected);
    }

    private static LogRecord readBack(List<byte[]> lines, Format format) throws Exception {
        ForwarderConfig.Parser config =
                new ConfigLoader(Path.of("/")).defaults().parser();
        TimeParser time = TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());
        StructuredReader reader = format == Format.LOGFMT
                ? new LogfmtLineReader(KeyMapping.DEFAULT, null, time)
                : new JsonLineReader(KeyMapping.DEFAULT, null, time);
        RecordAssembler assembler = new RecordAssembler(
                new RecordFilter(List.of(), List.of()),
                new Transformer(new ConfigLoader(Path.of("/")).defaults().transform()),
                reader,
                RecordAssembler.EventTimes.NONE);
        Batch batch = new Batch(dev.logpipe.forwarder.config.Format.NDJSON);
        batch.reset(new SourceFile("/logs/app.log", "h", RecordId.fileScope("h", 1, 2, "f"), null, "1:2:f"), 0);
        assembler.into(batch);
        ContainerLines container = format == Format.CRI_JSON
                ? new CriLines(config.maxRecordBytes())
                : format == Format.DOCKER_JSON ? new DockerLines(config.maxRecordBytes()) : null;
        LineParser parser = new LineParser();
        long offset = 0;
        for (byte[] b : lines) {
            long end = offset + b.length + 1;
            if (container != null) {
                container.line(b, 0, b.length, offset, end, false, 0, parser, assembler);
            } else {
                parser.line(b, 0, b.length, offset, end, false, TimeParser.NONE, 0, 0, assembler);
            }
            offset = end;
        }
        assertThat(batch.size()).isEqualTo(1);
        return new RecordCodec().decode(batch.wire().array(), 0, batch.wireEnd(0));
    }

    private static String time(Sample s) {
        return Instant.ofEpochMilli(s.timeMillis)
                .atOffset(ZoneOffset.ofTotalSeconds(s.offsetMinutes * 60))
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }

    private static String json(Sample s) {
        JsonBuffer b = new JsonBuffer(256);
        b.ascii("{\"msg\":")
                .string(s.message)
                .ascii(",\"level\":")
                .string(s.level.name().toLowerCase());
        if (s.service != null) {
            b.ascii(",\"service\":{\"name\":").string(s.service).ascii("}");
        }
        if (s.traceId != null) {
            b.ascii(",\"traceId\":").string(s.traceId);
        }
        if (s.timeMillis != null) {
            b.ascii(",\"@timestamp\":").string(time(s));
        }
        for (Map.Entry<String, Object> e : s.fields.entrySet()) {
            b.raw((byte) ',').string(e.getKey()).raw((byte) ':');
            if (e.getValue() instanceof String v) {
                b.string(v);
            } else {
                b.ascii(String.valueOf(e.getValue()));
            }
        }
        return new String(b.toByteArray(), StandardCharsets.UTF_8) + "}";
    }

    private static String quoted(String v) {
        return "\""
                + v.replace("\\", "\\\\")
                        .replace("\"", "\\\"")
                        .replace("\n", "\\n")
                        .replace("\r", "\\r")
                        .replace("\t", "\\t")
                + "\"";
    }

    private static String logfmt(Sample s) {
        StringBuilder b = new StringBuilder("level=").append(s.level.name().toLowerCase());
        b.append(" msg=").append(quoted(s.message));
        if (s.service != null) {
            b.append(" service=").append(s.service);
        }
        if (s.traceId != null) {
            b.append(" trace_id=").append(s.traceId);
        }
        if (s.timeMillis != null) {
            b.append(" ts=").append(time(s));
        }
        s.fields.forEach((k, v) -> b.append(' ').append(k).append('=').append(quoted(String.valueOf(v))));
        return b.toString();
    }

    /** Cut points inside {@code n} units, sorted and distinct. */
    private static List<Integer> cuts(List<Integer> raw, int n) {
        List<Integer> out = new ArrayList<>();
        if (n < 2) {
            return out;
        }
        raw.stream().map(c -> 1 + c % (n - 1)).distinct().sorted().forEach(out::add);
        return out;
    }

    private static String runtimeTime(Sample s) {
        return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(s.runtimeMillis));
    }

    private static List<byte[]> cri(String app, Sample s) {
        byte[] b = app.getBytes(StandardCharsets.UTF_8);
        List<byte[]> out = new ArrayList<>();
        List<Integer> cuts = cuts(s.cuts, b.length);
        cuts.add(b.length);
        int from = 0;
        for (int i = 0; i < cuts.size(); i++) {
            // Bytes, not characters: a piece may end inside a multi-byte character, as the runtime's do.
            byte[] prefix = (runtimeTime(s) + " stdout " + (i < cuts.size() - 1 ? "P " : "F "))
                    .getBytes(StandardCharsets.US_ASCII);
            int n = cuts.get(i) - from;
            byte[] line = new byte[prefix.length + n];
            System.arraycopy(prefix, 0, line, 0, prefix.length);
            System.arraycopy(b, from, line, prefix.length, n);
            out.add(line);
            from = cuts.get(i);
        }
        return out;
    }

    private static List<byte[]> docker(String app, Sample s) {
        int[] cps = app.codePoints().toArray();
        List<Integer> cuts = cuts(s.cuts, cps.length);
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        cuts.add(cps.length);
        for (int i = 0; i < cuts.size(); i++) {
            String piece = new String(cps, from, cuts.get(i) - from) + (i == cuts.size() - 1 ? "\n" : "");
            from = cuts.get(i);
            JsonBuffer b = new JsonBuffer(128);
            b.ascii("{\"log\":")
                    .string(piece)
                    .ascii(",\"stream\":\"stdout\",\"time\":\"")
                    .ascii(runtimeTime(s))
                    .ascii("\"}");
            out.add(b.toByteArray());
        }
        return out;
    }
}
