package dev.logpipe.archive.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ArchiveFormatTest {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final ShardId DAY = ShardId.records("acme", LocalDate.parse("2026-11-20"));
    private static final Instant T = Instant.parse("2026-11-20T00:00:00Z");
    private static final ArchiveWriter.Settings SMALL_BLOCKS = new ArchiveWriter.Settings(16 << 10, 3);

    /** Realistic records: several services and levels, identical timestamps in runs of three, a rare token. */
    static List<ArchivedRecord> records(int n) {
        List<ArchivedRecord> out = new ArrayList<>();
        String[] services = {"checkout", "payments", "auth", "search"};
        for (int i = 0; i < n; i++) {
            Instant t = T.plusMillis((i / 3) * 250L);
            LogRecord r = LogRecord.builder(
                            i == n / 2
                                    ? "needle-7731 found in request " + i
                                    : "GET /api/v1/orders/" + (i % 97) + " took " + (i % 13) + "ms user=u" + (i % 41))
                    .recordId(String.format("r-%06d", n - i))
                    .eventTime(t)
                    .observedTime(t.plusMillis(i % 50))
                    .tenantId("acme")
                    .service(services[i % services.length])
                    .instanceId("i-" + (i % 7))
                    .region(i % 2 == 0 ? "eu-west-1" : null)
                    .level(i % 17 == 0 ? Level.ERROR : Level.INFO)
                    .field("http.status", i % 17 == 0 ? 500 : 200)
                    .build();
            String source = new String(CODEC.encode(r), StandardCharsets.UTF_8);
            out.add(ArchivedRecord.of(r, t, source));
        }
        out.sort((a, b) -> a.eventTimeMillis() != b.eventTimeMillis()
                ? Long.compare(a.eventTimeMillis(), b.eventTimeMillis())
                : Arrays.compareUnsigned(
                        b.recordId().getBytes(StandardCharsets.UTF_8),
                        a.recordId().getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    static byte[] write(List<ArchivedRecord> records, ArchiveWriter.Settings settings) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ArchiveWriter w = new ArchiveWriter(DAY, settings, out);
        for (ArchivedRecord r : records) {
            w.add(r, CODEC.decode(r.source().getBytes(StandardCharsets.UTF_8)));
        }
        w.finish();
        return out.toByteArray();
    }

    record Bytes(byte[] bytes, AtomicInteger reads) implements RangeSource {
        Bytes(byte[] bytes) {
            this(bytes, new AtomicInteger());
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public byte[] read(long offset, int length) {
            reads.incrementAndGet();
            return Arrays.copyOfRange(bytes, (int) offset, (int) offset + length);
        }
    }

    @Test
    void everyRecordReadsBackInOrderWithTheDigestOfTheDay() throws Exception {
        List<ArchivedRecord> records = records(3000);
        byte[] archive = write(records, SMALL_BLOCKS);

        ArchiveReader reader = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(archive));
        List<ArchivedRecord> back = new ArrayList<>();
        for (int i = 0; i < reader.footer().blocks().size(); i++) {
            Block b = reader.block(i);
            for (int r = 0; r < b.size(); r++) {
                back.add(b.record(r));
            }
        }
        DayDigest expected = new DayDigest();
        records.forEach(r -> expected.add(r.eventTimeMillis(), r.recordId(), r.source()));

        assertThat(back).isEqualTo(records);
        assertThat(reader.footer().blocks()).hasSizeGreaterThan(10);
        assertThat(reader.footer().records()).isEqualTo(3000);
        assertThat(reader.footer().day()).isEqualTo(DAY);
        assertThat(reader.footer().minEventTimeMillis()).isEqualTo(T.toEpochMilli());
        assertThat(reader.footer().maxEventTimeMillis())
                .isEqualTo(records.get(2999).eventTimeMillis());
        assertThat(reader.verify()).isEqualTo(reader.footer().digest()).isEqualTo(expected.hex());
        assertThat(archive.length).isLessThan((int) reader.footer().sourceBytes() / 4);
    }

    @Test
    void aMessageScanMakesNoRecordAndARecordAskedForLaterIsTheOneWritten() throws Exception {
        List<ArchivedRecord> records = records(3000);
        ArchiveReader reader = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(write(records, SMALL_BLOCKS)));
        int at = 0;
        for (int i = 0; i < reader.footer().blocks().size(); i++) {
            Block b = reader.block(i);
            for (int r = 0; r < b.size(); r++) {
                LogRecord written = CODEC.decode(records.get(at + r).source().getBytes(StandardCharsets.UTF_8));
                assertThat(b.message(r)).isEqualTo(written.message());
            }
            // the scan read every message and made no record (no fields map, no times): those wait to be asked for
            assertThat(b.rebuilt).containsOnlyNulls();
            for (int r = 0; r < b.size(); r++) {
                LogRecord written = CODEC.decode(records.get(at + r).source().getBytes(StandardCharsets.UTF_8));
                assertThat(b.decoded(r)).isEqualTo(written);
                assertThat(b.source(r)).isEqualTo(records.get(at + r).source());
            }
            at += b.size();
        }
        assertThat(at).isEqualTo(3000);
    }

    @Test
    void aDecodeRefusesTimesNoRecordCouldHaveAheadOfMakingTheRecord() {
        long t = T.toEpochMilli();
        SourceRebuild.checkTimes(t, t, new SourceRebuild.Pending(3, 0, 0, 0, "m", 0));
        // past year 9999, and an offset that overflows: a damaged column, found by the decode, not by a later reader
        assertThatThrownBy(() -> SourceRebuild.checkTimes(
                        t, t, new SourceRebuild.Pending(3, 400L * 365 * 86_400_000 * 25, 0, 0, "m", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of a record's range");
        assertThatThrownBy(() ->
                        SourceRebuild.checkTimes(t, t, new SourceRebuild.Pending(3, Long.MAX_VALUE, 0, 0, "m", 0)))
                .isInstanceOf(ArithmeticException.class);
    }

    @Test
    void sourcesTheCodecReproducesAreRebuiltFromColumnsAndOthersKeptAsTheyCame() throws Exception {
        Instant t = T.plusSeconds(60);
        LogRecord odd = LogRecord.builder("quote \" backslash \\ tab\t newline\n emoji \uD83D\uDE00 nul \u0000")
                .recordId("z-1")
                .eventTime(t.plusNanos(123_456_789))
                .observedTime(t.plusNanos(987_654_321))
                .tenantId("acme")
                .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
                .spanId("00f067aa0ba902b7")
                .level(Level.WARN)
                .field("s", "v \"q\" é")
                .field("neg", -42L)
                .field("big", Long.MAX_VALUE)
                .field("d", 0.1)
                .field("huge", 1e300)
                .field("nan", Double.NaN)
                .field("yes", true)
                .field("no", false)
                .build();
        String canonical = new String(CODEC.encode(odd), StandardCharsets.UTF_8);
        List<ArchivedRecord> records = new ArrayList<>();
        records.add(ArchivedRecord.of(odd, t, canonical));
        // indexed under a clamped time, not the source's own
        records.add(ArchivedRecord.of(
                odd.toBuilder().recordId("z-2").build(),
                t.minusSeconds(3600),
                new String(CODEC.encode(odd.toBuilder().recordId("z-2").build()), StandardCharsets.UTF_8)));
        // not the codec's own spelling: spaces, another key order, another tenant, no observed time
        String spaced = "{ \"schema_version\": 3, \"record_id\": \"z-3\", \"event_time\": \"2026-11-20T00:01:00Z\","
                + " \"tenant_id\": \"acme\", \"observed_time\": \"2026-11-20T00:01:00Z\", \"message\": \"m\" }";
        String reordered = canonical
                .replace("\"z-1\"", "\"z-4\"")
                .replaceFirst("\\{\"schema_version\":3,", "{")
                .replaceFirst("\\}$", ",\"schema_version\":3}");
        String otherTenant = new String(
                CODEC.encode(odd.toBuilder().recordId("z-5").tenantId("other").build()), StandardCharsets.UTF_8);
        String noObserved = new String(
                CODEC.encode(odd.toBuilder().recordId("z-6").observedTime(null).build()), StandardCharsets.UTF_8);
        for (String source : List.of(spaced, reordered, otherTenant, noObserved)) {
            LogRecord decoded = CODEC.decode(source.getBytes(StandardCharsets.UTF_8));
            records.add(ArchivedRecord.of(decoded, t, source));
        }
        records.sort((a, b) -> a.eventTimeMillis() != b.eventTimeMillis()
                ? Long.compare(a.eventTimeMillis(), b.eventTimeMillis())
                : b.recordId().compareTo(a.recordId()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ArchiveWriter w = new ArchiveWriter(DAY, SMALL_BLOCKS, out);
        for (ArchivedRecord r : records) {
            w.add(r, CODEC.decode(r.source().getBytes(StandardCharsets.UTF_8)));
        }
        w.finish();

        ArchiveReader reader = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(out.toByteArray()));
        Block block = reader.block(0);
        List<ArchivedRecord> back = new ArrayList<>();
        for (int i = 0; i < block.size(); i++) {
            back.add(block.record(i));
        }

        assertThat(w.rebuiltRecords()).isEqualTo(2);
        assertThat(back).isEqualTo(records);
        assertThat(reader.verify()).isEqualTo(reader.footer().digest());
        assertThat(reader.footer().format()).isEqualTo(2);
    }

    @Test
    void messagesComeBackExactlyWhateverTheirSpacing() {
        List<String> messages = List.of(
                "GET /a took 3ms",
                "GET /b took 3ms",
                "",
                " ",
                "  leading and trailing  ",
                "GET",
                "emoji \uD83D\uDE00 GET é",
                "tab\there GET /a",
                "took_ms=0 took_ms=12 took_ms=007 id=1234567890123456789012 v1.2.3 -5 \u0001x 9\u0001",
                "ip 10.0.0.1 at 2025-03-14T18:02:07.007Z ip 10.0.0.2 max 999999999999999999");
        dev.logpipe.archive.format.Bytes words = new dev.logpipe.archive.format.Bytes(16);
        dev.logpipe.archive.format.Bytes literals = new dev.logpipe.archive.format.Bytes(16);
        dev.logpipe.archive.format.Bytes numbers = new dev.logpipe.archive.format.Bytes(16);
        MessageColumns.write(messages, words, literals, numbers);

        MessageColumns.Reader reader = new MessageColumns.Reader(
                new dev.logpipe.archive.format.Bytes.Reader(words.toArray()),
                new dev.logpipe.archive.format.Bytes.Reader(literals.toArray()),
                new dev.logpipe.archive.format.Bytes.Reader(numbers.toArray()));
        List<String> back = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            back.add(reader.next());
        }

        assertThat(back).isEqualTo(messages);
        // repeated shapes are numbered, not spelled again: only the once-seen ones are literals, numbers apart
        String spelled = new String(literals.toArray(), StandardCharsets.UTF_8);
        assertThat(spelled).contains("/b", "leading", "\uD83D\uDE00").doesNotContain("GET", "took_ms=12", "10.0");
    }

    @Test
    void formatOneArchivesStillReadBackRecordForRecord() throws Exception {
        // written by the format 1 writer (commit 2bb5aae) from records(300) in 16 KiB blocks
        byte[] formatOne;
        try (var in = getClass().getResourceAsStream("format-1.lpa")) {
            formatOne = in.readAllBytes();
        }
        ArchiveReader reader = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(formatOne));
        List<ArchivedRecord> back = new ArrayList<>();
        for (int i = 0; i < reader.footer().blocks().size(); i++) {
            Block b = reader.block(i);
            for (int r = 0; r < b.size(); r++) {
                back.add(b.record(r));
            }
        }

        assertThat(reader.footer().format()).isEqualTo(1);
        assertThat(back).isEqualTo(records(300));
        // its token filters answer the probes this build makes (the hash is unchanged)
        boolean needle = false;
        for (int i = 0; i < reader.footer().blocks().size(); i++) {
            needle |= reader.filter(i).mightContain(Tokens.message("needle-7731"));
            assertThat(reader.filter(i).mightContain(Tokens.keyword("fields.http.status", "200")))
                    .isTrue();
        }
        assertThat(needle).isTrue();
        assertThat(reader.verify()).isEqualTo(reader.footer().digest());
        assertThat(write(records(300), SMALL_BLOCKS).length).isLessThan(formatOne.length * 3 / 4);
    }

    @Test
    void theFooterOpensWithOneRangedRead() throws Exception {
        Bytes source = new Bytes(write(records(3000), SMALL_BLOCKS));

        ArchiveReader.open("a", source);

        assertThat(source.reads()).hasValue(1);
    }

    @Test
    void blocksArePrunedByTimeLabelsAndTokenFilterWithoutReadingThem() throws Exception {
        ArchiveReader reader = ArchiveReader.open("a", new Bytes(write(records(3000), SMALL_BLOCKS)));
        List<ArchiveFooter.BlockInfo> blocks = reader.footer().blocks();

        int needleBlocks = 0;
        int statusBlocks = 0;
        for (int i = 0; i < blocks.size(); i++) {
            TokenFilter f = reader.filter(i);
            if (f.mightContain(Tokens.message("needle-7731"))) {
                needleBlocks++;
                // a compound token is held whole and by its parts (a filter has no false negatives)
                assertThat(f.mightContain(Tokens.message("7731"))).isTrue();
                assertThat(f.mightContain(Tokens.message("needle"))).isTrue();
            }
            statusBlocks += f.mightContain(Tokens.keyword("fields.http.status", "500")) ? 1 : 0;
            // services take turns record by record: a block of four or more (all but perhaps the last) has each
            if (blocks.get(i).records() >= 4) {
                assertThat(blocks.get(i).mayHold(Label.SERVICE, "checkout")).isTrue();
            }
            assertThat(blocks.get(i).mayHold(Label.SERVICE, "billing")).isFalse();
            assertThat(blocks.get(i).mayHold(Label.LEVEL, "INFO")).isTrue();
        }
        assertThat(needleBlocks).isBetween(1, 2);
        assertThat(statusBlocks).isEqualTo(blocks.size());
        for (int i = 1; i < blocks.size(); i++) {
            assertThat(blocks.get(i).minEventTimeMillis())
                    .isGreaterThanOrEqualTo(blocks.get(i - 1).maxEventTimeMillis());
        }
    }

    @Test
    void aFlippedByteInABlockIsDetectedAndNamed() throws Exception {
        byte[] archive = write(records(3000), SMALL_BLOCKS);
        ArchiveReader clean = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(archive));
        ArchiveFooter.BlockInfo third = clean.footer().blocks().get(2);
        archive[(int) third.offset() + third.length() / 2] ^= 0x10;

        ArchiveReader reader = ArchiveReader.open("acme/2026-11-20.lpa", new Bytes(archive));

        assertThat(reader.block(1).size()).isPositive();
        assertThatThrownBy(() -> reader.block(2))
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessage("archive acme/2026-11-20.lpa is corrupt: block 2 checksum mismatch");
        assertThatThrownBy(reader::verify)
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessageContaining("block 2");
    }

    @Test
    void aFlippedByteInTheFooterOrAFilterIsDetectedAndNamed() throws Exception {
        byte[] archive = write(records(3000), SMALL_BLOCKS);
        ArchiveFooter footer = ArchiveReader.open("a", new Bytes(archive)).footer();
        byte[] filterFlipped = archive.clone();
        filterFlipped[(int) footer.blocks().get(0).filterOffset() + 9] ^= 0x01;
        byte[] footerFlipped = archive.clone();
        footerFlipped[archive.length - ArchiveWriter.TRAILER_LENGTH - 20] ^= 0x01;

        assertThatThrownBy(
                        () -> ArchiveReader.open("b", new Bytes(filterFlipped)).filter(0))
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessage("archive b is corrupt: token filter of block 0 checksum mismatch");
        assertThatThrownBy(() -> ArchiveReader.open("c", new Bytes(footerFlipped)))
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessage("archive c is corrupt: footer checksum mismatch");
    }

    @Test
    void aPartialUploadIsNotAnArchive() throws Exception {
        byte[] archive = write(records(3000), SMALL_BLOCKS);

        assertThatThrownBy(() -> ArchiveReader.open("d", new Bytes(Arrays.copyOf(archive, archive.length - 1))))
                .isInstanceOf(CorruptArchiveException.class)
                .hasMessageContaining("archive d is corrupt: no trailer");
    }

    @Test
    void recordsOutOfMergeOrderAreRefused() throws Exception {
        List<ArchivedRecord> records = records(10);
        ArchiveWriter w = new ArchiveWriter(DAY, SMALL_BLOCKS, new ByteArrayOutputStream());
        LogRecord decoded = CODEC.decode(records.get(0).source().getBytes(StandardCharsets.UTF_8));
        w.add(records.get(1), decoded);

        assertThatThrownBy(() -> w.add(records.get(0), decoded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oldest first");
        assertThatThrownBy(() -> w.add(records.get(1), decoded)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEmptyDayIsAnArchiveOfNoBlocks() throws Exception {
        ArchiveReader reader = ArchiveReader.open("e", new Bytes(write(List.of(), SMALL_BLOCKS)));

        assertThat(reader.footer().records()).isZero();
        assertThat(reader.footer().blocks()).isEmpty();
        assertThat(reader.verify()).isEqualTo(new DayDigest().hex());
    }
}
