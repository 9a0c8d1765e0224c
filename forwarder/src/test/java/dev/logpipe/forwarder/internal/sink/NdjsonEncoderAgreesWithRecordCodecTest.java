package dev.logpipe.forwarder.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.parse.Emitter;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
 * computed once) and every other process writes them with {@link RecordCodec}, the owner of the layout: this property
 * holds the forwarder to the codec byte for byte. For a text line (with or without transform attributes, event time,
 * container stream and partial flags), the forwarder's line is exactly {@code RecordCodec.encodeTo} of the record
 * built from the same values with the record module's builder, so a schema change made in one writer and not the
 * other fails here. The messages, paths, host, service and attribute values cover every class of character the
 * two could escape differently: controls, DEL, quotes, backslashes, U+2028/U+2029, non-ASCII, astral characters and
 * lone surrogates (which {@code String.getBytes} turns into {@code ?} for both).
 *
 * <p>Why the codec owns the layout: archive format 2 rebuilds sources with {@code RecordCodec.encodeTo} and the day
 * digest in each archive covers the rebuilt bytes (docs/archive-format.md, "Rebuilt sources").
 *
 * <p>One case cannot be compared byte for byte, and the main property leaves it out: a line holding invalid UTF-8.
 * The codec never sees such a line as bytes, only as a Java {@code String}, and there is no String "built from the
 * same values" whose encoding is the forwarder's: the forwarder ({@code JsonBuffer.string(byte[])}) replaces each byte
 * that does not start a well-formed sequence by U+FFFD, while {@code new String(bytes, UTF_8)} replaces each maximal
 * ill-formed subpart ({@code E2 82} cut short is two U+FFFD for the forwarder, one for the String). For those lines
 * {@link #aLineWithInvalidUtf8IsWhatTheCodecWritesForTheRecordItReads} holds the weaker property: the forwarder's
 * bytes are what the codec writes back for the record it reads from them.
 *
 * <p>Lines read as JSON are not generated here: their values are copied as the line spells them (numbers such as
 * {@code 1.50}, a {@code \/} escape), which the codec would spell from the decoded value; see {@link NdjsonEncoder}.
 */
class NdjsonEncoderAgreesWithRecordCodecTest {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final String HOST_CHARS = "ab-1é\"\\\u0001\u007f\u2028";

    @Property(tries = 1000)
    void theForwarderWritesTheCodecsBytes(
            @ForAll("texts") String text,
            @ForAll("texts") String path,
            @ForAll("hosts") String host,
            @ForAll("services") String sourceService,
            @ForAll("offsets") long offset,
            @ForAll boolean truncated,
            @ForAll("eventTimes") long eventTime,
            @ForAll("flags") int flags,
            @ForAll("attributes") Attributes attrs) {
        byte[] message = text.getBytes(StandardCharsets.UTF_8); // valid UTF-8: a lone surrogate is '?'
        byte[] line = forwarderLine(path, host, sourceService, message, offset, truncated, eventTime, flags, attrs);

        LogRecord expected = expected(
                RecordId.fileScope(host, 64768, 42, "00ff").at(offset),
                new String(message, StandardCharsets.UTF_8),
                path,
                host,
                sourceService,
                offset,
                truncated,
                eventTime,
                flags,
                attrs);
        assertThat(new String(line, StandardCharsets.UTF_8))
                .isEqualTo(new String(CODEC.encode(expected), StandardCharsets.UTF_8));
        assertThat(line).isEqualTo(CODEC.encode(expected));
    }

    @Property(tries = 300)
    void aLineWithInvalidUtf8IsWhatTheCodecWritesForTheRecordItReads(
            @ForAll("rawBytes") byte[] message, @ForAll("offsets") long offset, @ForAll("attributes") Attributes attrs)
            throws Exception {
        byte[] line = forwarderLine(
                "/var/log/app.log", "host-1", "billing", message, offset, false, TimeParser.NONE, 0, attrs);

        assertThat(CODEC.encode(CODEC.decode(line))).isEqualTo(line);
    }

    /** The forwarder's line for one record, without its newline. */
    private static byte[] forwarderLine(
            String path,
            String host,
            String sourceService,
            byte[] message,
            long offset,
            boolean truncated,
            long eventTime,
            int flags,
            Attributes attrs) {
        RecordId.Scope ids = RecordId.fileScope(host, 64768, 42, "00ff");
        Batch batch = new Batch(Format.NDJSON);
        batch.reset(new SourceFile(path, host, ids, sourceService, "64768:42:00ff"), offset);
        long end = offset + message.length + 1;
        batch.add(message, 0, message.length, offset, end, end, 1, truncated, attrs, null, eventTime, flags);
        byte[] wire = batch.wire().toByteArray();
        assertThat(wire[wire.length - 1]).isEqualTo((byte) '\n');
        return Arrays.copyOf(wire, wire.length - 1);
    }

    /**
     * The record the forwarder means for this line, built with the record module's own builder; its fields in the
     * order the forwarder documents (docs/record-format.md).
     */
    private static LogRecord expected(
            String id,
            String message,
            String path,
            String host,
            String sourceService,
            long offset,
            boolean truncated,
            long eventTime,
            int flags,
            Attributes attrs) {
        Attributes a = attrs == null ? Attributes.NONE : attrs;
        LogRecord.Builder b = LogRecord.builder(message)
                .recordId(id)
                .eventTime(eventTime == TimeParser.NONE ? null : Instant.EPOCH.plusNanos(eventTime))
                .instanceId(host)
                .service(a.service() != null ? a.service() : sourceService)
                .level(Level.normalize(a.level()))
                .traceId(a.traceId())
                .spanId(a.spanId())
                .region(a.region())
                .field("log.file.path", path)
                .field("log.offset", offset);
        if (truncated) {
            b.field("log.truncated", true);
        }
        if ((flags & Emitter.STDOUT) != 0) {
            b.field("stream", "stdout");
        } else if ((flags & Emitter.STDERR) != 0) {
            b.field("stream", "stderr");
        }
        if ((flags & Emitter.PARTIAL) != 0) {
            b.field("log.partial", true);
        }
        a.fields().forEach(b::field);
        return b.build();
    }

    /** Text with every class of character the two writers could escape differently. */
    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(80),
                Arbitraries.strings()
                        .withChars("ab \"\\\t\n\r\b\f/é€😀\u0000\u001f\u007f\u0080\u2028\u2029\ud800\udfff\ufffd")
                        .ofMaxLength(40),
                Arbitraries.strings().ascii().ofMaxLength(80));
    }

    @Provide
    Arbitrary<String> hosts() {
        return Arbitraries.oneOf(
                Arbitraries.just("host-1"),
                Arbitraries.strings().withChars(HOST_CHARS).ofMinLength(1).ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> services() {
        return Arbitraries.strings()
                .withChars(HOST_CHARS)
                .ofMinLength(1)
                .ofMaxLength(12)
                .injectNull(0.3);
    }

    /** Arbitrary bytes, mostly invalid UTF-8 (cut and stray sequences, overlongs, surrogates). */
    @Provide
    Arbitrary<byte[]> rawBytes() {
        Arbitrary<Byte> b = Arbitraries.oneOf(
                Arbitraries.bytes(),
                Arbitraries.of(
                        (byte) 0xE2, (byte) 0x82, (byte) 0xAC, (byte) 0xC0, (byte) 0xED, (byte) 0xF4, (byte) 'a'));
        return b.array(byte[].class).ofMaxSize(40);
    }

    @Provide
    Arbitrary<Long> offsets() {
        return Arbitraries.longs().between(0, Long.MAX_VALUE / 4);
    }

    /** Epoch nanoseconds (1677 to 2262, all a long holds), or none. */
    @Provide
    Arbitrary<Long> eventTimes() {
        return Arbitraries.oneOf(
                Arbitraries.just(TimeParser.NONE),
                Arbitraries.longs().between(Long.MIN_VALUE + 1, Long.MAX_VALUE),
                Arbitraries.longs().between(0, 4_000_000_000L).map(s -> s * 1_000_000_000L));
    }

    @Provide
    Arbitrary<Integer> flags() {
        return Arbitraries.of(
                0, Emitter.STDOUT, Emitter.STDERR, Emitter.STDOUT | Emitter.PARTIAL, Emitter.STDERR | Emitter.PARTIAL);
    }

    @Provide
    Arbitrary<Attributes> attributes() {
        Arbitrary<String> word = Arbitraries.strings()
                .withChars("abcXYZ-_.é\"\\\u0000\u001f\u007f\u2028😀")
                .ofMinLength(1)
                .ofMaxLength(12);
        Arbitrary<String> level =
                Arbitraries.of("error", "WARN", "info", "debug", "fatal", "notice", "weird", "unknown");
        Arbitrary<Map<String, String>> fields = Arbitraries.maps(
                        Arbitraries.strings()
                                .withChars("abcdef.\"é")
                                .ofMinLength(1)
                                .ofMaxLength(8)
                                .filter(k -> !k.startsWith("log.") && !k.equals("stream")),
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
