package dev.logpipe.forwarder.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Instants rendered in each layout by java.time parse back to the same instant (to the layout's precision). */
class TimeLayoutPropertyTest {
    private static final String[] ZONES = {
        "UTC",
        "Europe/Berlin",
        "America/New_York",
        "Asia/Kolkata",
        "Australia/Lord_Howe",
        "Pacific/Chatham",
        "America/St_Johns"
    };

    @Provide
    Arbitrary<Long> nanos() {
        long from = Instant.parse("1971-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;
        long to = Instant.parse("2200-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;
        return Arbitraries.longs().between(from, to);
    }

    @Provide
    Arbitrary<String> zones() {
        return Arbitraries.of(ZONES);
    }

    private static Instant instant(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    private static long nanosOf(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Property(tries = 2000)
    void rfc3339WithOffsetRoundTrips(@ForAll("nanos") long nanos, @ForAll("zones") String zone) {
        ZonedDateTime z = instant(nanos).atZone(ZoneId.of(zone));
        String text = z.format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX", Locale.ROOT));
        assertThat(TimeParsers.of(TimeLayout.RFC3339, ZoneId.of("UTC"), null, InstantSource.system())
                        .parse(text))
                .as(text)
                .isEqualTo(nanos);
    }

    @Property(tries = 2000)
    void localTimesAgreeWithJavaTime(@ForAll("nanos") long nanos, @ForAll("zones") String zone) {
        ZoneId id = ZoneId.of(zone);
        String text =
                instant(nanos).atZone(id).format(DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss,SSS", Locale.ROOT));
        long expected = nanosOf(ZonedDateTime.ofLocal(
                        LocalDateTime.parse(text, DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss,SSS", Locale.ROOT)),
                        id,
                        null)
                .toInstant());
        TimeParser p = TimeParsers.of(TimeLayout.LOG4J, id, null, InstantSource.system());
        assertThat(p.parse(text)).as(text).isEqualTo(expected);
    }

    @Property(tries = 1000)
    void commonLogRoundTrips(@ForAll("nanos") long nanos, @ForAll("zones") String zone) {
        long seconds = Math.floorDiv(nanos, 1_000_000_000L) * 1_000_000_000L;
        String text = instant(nanos)
                .atZone(ZoneId.of(zone))
                .format(DateTimeFormatter.ofPattern("dd/MMM/uuuu:HH:mm:ss Z", Locale.ENGLISH));
        assertThat(TimeParsers.of(TimeLayout.COMMON_LOG, ZoneId.of("UTC"), null, InstantSource.system())
                        .parse(text))
                .as(text)
                .isEqualTo(seconds);
    }

    @Property(tries = 1000)
    void syslogRoundTripsWithinAYearBeforeTheClock(@ForAll("nanos") long now, @ForAll("zones") String zone) {
        long ago = Math.floorMod(now * 31, 350L * 86400) * 1_000_000_000L; // up to 350 days before now
        long t = Math.floorDiv(now - ago, 1_000_000_000L) * 1_000_000_000L;
        String text = instant(t)
                .atZone(ZoneId.of(zone))
                .format(DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss", Locale.ENGLISH));
        TimeParser p = TimeParsers.of(TimeLayout.SYSLOG, ZoneId.of(zone), null, InstantSource.fixed(instant(now)));
        long expected = nanosOf(
                ZonedDateTime.ofLocal(instant(t).atZone(ZoneId.of(zone)).toLocalDateTime(), ZoneId.of(zone), null)
                        .toInstant());
        assertThat(p.parse(text)).as(text).isEqualTo(expected);
    }

    @Property(tries = 1000)
    void epochMillisRoundTrip(@ForAll("nanos") long nanos) {
        long ms = Math.floorDiv(nanos, 1_000_000L);
        assertThat(TimeParsers.of(TimeLayout.EPOCH_MS, ZoneId.of("UTC"), null, InstantSource.system())
                        .parse(Long.toString(ms)))
                .isEqualTo(ms * 1_000_000L);
    }

    @Property(tries = 2000)
    void writtenEventTimeIsWhatRecordCodecWouldWrite(@ForAll("nanos") long nanos) {
        JsonBuffer out = new JsonBuffer(64);
        new EventTimeWriter().write(nanos, out);
        String written = new String(out.array(), 0, out.size(), StandardCharsets.US_ASCII);
        Instant i = instant(nanos);
        String fraction = i.getNano() % 1_000_000 == 0
                ? String.format("%03d", i.getNano() / 1_000_000)
                : String.format("%09d", i.getNano());
        String expected =
                DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT)
                                .format(i.atZone(ZoneId.of("UTC"))) + "." + fraction + "Z";
        assertThat(written).isEqualTo("\"" + expected + "\"");
        assertThat(TimeParsers.of(TimeLayout.RFC3339, ZoneId.of("UTC"), null, InstantSource.system())
                        .parse(expected))
                .isEqualTo(nanos);
    }

    @Provide
    Arbitrary<List<String>> timestampsOfFewMinutes() {
        // Consecutive lines share their minute (the parser's cache) or not; some seconds, fractions and offsets
        // are not valid.
        Arbitrary<String> minute = Arbitraries.of(
                "2026-12-01T08:10", "2026-12-01T08:11", "2026-12-01 08:10", "2026-02-29T08:10", "2024-02-29T23:59");
        Arbitrary<String> second = Arbitraries.of(":00", ":07", ":59", ":60", ":5x", ":-1");
        Arbitrary<String> fraction = Arbitraries.of("", ".000", ".123", ".5", ".1234", ".", ",250", ".12a");
        Arbitrary<String> offset = Arbitraries.of("Z", "", "+01:00", "-0530", "z", "Zjunk");
        return Combinators.combine(minute, second, fraction, offset)
                .as((m, sec, f, o) -> m + sec + f + o)
                .list()
                .ofMinSize(1)
                .ofMaxSize(20);
    }

    @Property(tries = 500)
    void aParserReadingLineAfterLineReadsEachAsAFreshOneWould(
            @ForAll("timestampsOfFewMinutes") List<String> texts, @ForAll("zones") String zone) {
        TimeParser reused = TimeParsers.of(TimeLayout.RFC3339, ZoneId.of(zone), null, InstantSource.system());
        for (String t : texts) {
            TimeParser fresh = TimeParsers.of(TimeLayout.RFC3339, ZoneId.of(zone), null, InstantSource.system());
            assertThat(reused.parse(t)).as(t).isEqualTo(fresh.parse(t));
        }
    }

    @Property(tries = 500)
    void aWriterWritingRecordAfterRecordWritesEachAsAFreshOneWould(
            @ForAll("nanos") long first, @ForAll List<@IntRange(min = -3000, max = 3000) Integer> stepsMillis) {
        EventTimeWriter reused = new EventTimeWriter();
        long t = first;
        for (int step : stepsMillis) {
            t += step * 1_000_000L + (step % 7 == 0 ? 123 : 0); // some below the millisecond
            JsonBuffer a = new JsonBuffer(64);
            JsonBuffer b = new JsonBuffer(64);
            reused.write(t, a);
            new EventTimeWriter().write(t, b);
            assertThat(new String(a.toByteArray(), StandardCharsets.US_ASCII))
                    .isEqualTo(new String(b.toByteArray(), StandardCharsets.US_ASCII));
        }
    }
}
