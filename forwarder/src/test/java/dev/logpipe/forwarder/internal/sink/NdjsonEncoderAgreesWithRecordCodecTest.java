package dev.logpipe.forwarder.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The forwarder writes schema-v3 records with its own byte-level encoder (no record object per line, per-file bytes
 * computed once) and every other process reads and writes them with {@link RecordCodec}: two writers of one format.
 * This property holds them to one record: what the forwarder writes for a line, the codec reads as exactly the
 * record built from the same values, and writes back as the same bytes as that record, so a schema change made in
 * one writer and not the other fails here. The forwarder's bytes are not the codec's byte for byte: it writes
 * {@code instance_id, service, level, trace_id, span_id, region} where the codec writes {@code trace_id, span_id,
 * service, instance_id, region, level}, and leaves out
 * {@code "level":"UNKNOWN"} (the codec's default when reading), which the codec's canonical form writes.
 *
 * <p>Why this property does not compare bytes (issue 30 asked for one byte layout, the forwarder's): the codec's
 * layout is stored. Archive format 2 does not keep a source that the codec's encoding of its columns gives back byte
 * for byte, it rebuilds it with the codec when read, and the archive footer's day digest (SHA-256 over the sources as
 * read back, checked by {@code ArchiveReader.verify}) covers those rebuilt bytes (docs/archive-format.md). Moving the
 * codec to the forwarder's order would change the source of every record already archived that way and fail the
 * verification of its day; only a new archive format could.
 */
class NdjsonEncoderAgreesWithRecordCodecTest {
    private static final RecordCodec CODEC = new RecordCodec();

    @Property(tries = 500)
    void whatTheForwarderWritesTheCodecWritesBackByteForByte(
            @ForAll("messages") byte[] message,
            @ForAll("offsets") long offset,
            @ForAll boolean truncated,
            @ForAll("attributes") Attributes attrs)
            throws Exception {
        RecordId.Scope ids = RecordId.fileScope("host-1", 64768, 42, "00ff");
        Batch batch = new Batch(Format.NDJSON);
        batch.reset(new SourceFile("/var/log/app \"x\".log", "host-1", ids, "billing", "64768:42:00ff"), offset);
        batch.add(message, 0, message.length, offset, offset + message.length + 1, 1, truncated, attrs);
        byte[] wire = batch.wire().toByteArray();
        byte[] line = Arrays.copyOf(wire, wire.length - 1); // without its newline

        LogRecord read = CODEC.decode(line);

        LogRecord expected = expected(ids.at(offset), message, offset, truncated, attrs);
        assertThat(read).isEqualTo(expected);
        assertThat(new String(CODEC.encode(read), StandardCharsets.UTF_8))
                .isEqualTo(new String(CODEC.encode(expected), StandardCharsets.UTF_8));
    }

    /** The record the forwarder means for this line, built with the record module's own builder. */
    private static LogRecord expected(String id, byte[] message, long offset, boolean truncated, Attributes attrs) {
        Attributes a = attrs == null ? Attributes.NONE : attrs;
        LogRecord.Builder b = LogRecord.builder(new String(message, StandardCharsets.UTF_8))
                .recordId(id)
                .instanceId("host-1")
                .service(a.service() != null ? a.service() : "billing")
                .level(Level.normalize(a.level()))
                .traceId(a.traceId())
                .spanId(a.spanId())
                .region(a.region())
                .field("log.file.path", "/var/log/app \"x\".log")
                .field("log.offset", offset);
        if (truncated) {
            b.field("log.truncated", true);
        }
        a.fields().forEach(b::field);
        return b.build();
    }

    @Provide
    Arbitrary<byte[]> messages() {
        Arbitrary<String> text = Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(80),
                Arbitraries.strings()
                        .withChars("ab \"\\\t\n/é€😀\u0000\u001f\u2028")
                        .ofMaxLength(40));
        return text.map(s -> s.getBytes(StandardCharsets.UTF_8));
    }

    @Provide
    Arbitrary<Long> offsets() {
        return Arbitraries.longs().between(0, Long.MAX_VALUE / 4);
    }

    @Provide
    Arbitrary<Attributes> attributes() {
        Arbitrary<String> word =
                Arbitraries.strings().withChars("abcXYZ-_.é\"\\").ofMinLength(1).ofMaxLength(12);
        Arbitrary<String> level = Arbitraries.of("error", "WARN", "info", "debug", "fatal", "notice", "weird");
        Arbitrary<Map<String, String>> fields = Arbitraries.maps(
                        Arbitraries.strings()
                                .withChars("abcdef.")
                                .ofMinLength(1)
                                .ofMaxLength(8)
                                .filter(k -> !k.startsWith("log.")),
                        word)
                .ofMaxSize(3);
        Arbitrary<Attributes> some = Combinators.combine(
                        word.injectNull(0.3),
                        level.injectNull(0.3),
                        word.injectNull(0.5),
                        word.injectNull(0.5),
                        word.injectNull(0.5),
                        fields)
                .as(Attributes::new);
        return some.injectNull(0.3);
    }
}
