package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class RecordTimesTest {
    @Property(tries = 2000)
    void theFastPathReadsEveryCanonicalTimeAsJavaTimeDoes(
            @ForAll("instants") Instant t, @ForAll("fractions") int digits, @ForAll("separators") String sep) {
        String full = RecordCodec.formatTime(t); // ...ss.SSSZ or ...ss.nnnnnnnnnZ
        String base = full.substring(0, 19).replace("T", sep.substring(0, 1));
        String nanos = String.format(Locale.ROOT, "%09d", t.getNano());
        String s = base + (digits == 0 ? "" : "." + nanos.substring(0, digits)) + sep.substring(1);
        assertThat(RecordTimes.parseUtc(s)).isEqualTo(javaTime(s)).isNotNull();
    }

    @Property(tries = 5000)
    void theWriterSpellsEveryTimeAsJavaTimeReadsIt(@ForAll("writtenTimes") Instant t) {
        byte[] out = new byte[RecordTimes.MAX_UTC_LENGTH + 4];
        int end = RecordTimes.writeUtc(t, out, 2);
        String written = new String(out, 2, end - 2, java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(written).isEqualTo(javaTimeLayout(t));
        assertThat(Instant.parse(written)).isEqualTo(t);
    }

    @Test
    void theWriterSpellsCalendarEdgesAsJavaTime() {
        for (String edge : new String[] {
            "0000-01-01T00:00:00Z", "0000-02-29T12:00:00.5Z", "0000-03-01T00:00:00Z", "1582-10-15T00:00:00Z",
            "1899-12-31T23:59:59.999Z", "1900-02-28T23:59:59Z", "1900-03-01T00:00:00Z",
                    "1969-12-31T23:59:59.999999999Z",
            "1970-01-01T00:00:00Z", "2000-02-29T00:00:00.000000001Z", "2024-02-29T23:59:59Z", "2100-03-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z"
        }) {
            Instant t = Instant.parse(edge);
            assertThat(RecordCodec.formatTime(t)).as(edge).isEqualTo(javaTimeLayout(t));
        }
    }

    /** The layout spelt by java.time's calendar: milliseconds, or nanoseconds when the time has finer ones. */
    private static String javaTimeLayout(Instant t) {
        OffsetDateTime u = t.atOffset(java.time.ZoneOffset.UTC);
        String fraction = t.getNano() % 1_000_000 == 0
                ? String.format(Locale.ROOT, "%03d", t.getNano() / 1_000_000)
                : String.format(Locale.ROOT, "%09d", t.getNano());
        return String.format(
                Locale.ROOT,
                "%04d-%02d-%02dT%02d:%02d:%02d.%sZ",
                u.getYear(),
                u.getMonthValue(),
                u.getDayOfMonth(),
                u.getHour(),
                u.getMinute(),
                u.getSecond(),
                fraction);
    }

    @Provide
    Arbitrary<Instant> writtenTimes() {
        Arbitrary<Integer> nanos = Arbitraries.oneOf(
                Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
                Arbitraries.integers().between(0, 999_999_999));
        return Arbitraries.longs()
                .between(
                        Instant.parse("0000-01-01T00:00:00Z").getEpochSecond(),
                        Instant.parse("9999-12-31T23:59:59Z").getEpochSecond())
                .flatMap(sec -> nanos.map(n -> Instant.ofEpochSecond(sec, n)));
    }

    @Property(tries = 5000)
    void anyOtherStringIsEitherReadAlikeOrHandedToJavaTime(@ForAll("nearlyCanonical") String s) {
        Instant fast = RecordTimes.parseUtc(s);
        if (fast != null) {
            assertThat(fast).isEqualTo(javaTime(s));
        }
    }

    @Test
    void invalidDatesAndLeapSecondsAndOffsetsAreHandedOver() {
        assertThat(RecordTimes.parseUtc("2026-02-30T00:00:00Z")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-31T23:59:60Z")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-31T24:00:00Z")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-01T08:00:00+01:00")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-01T08:00Z")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-01T08:00:00.Z")).isNull();
        assertThat(RecordTimes.parseUtc("2026-12-01T08:00:00.1234567890Z")).isNull();
        assertThat(RecordTimes.parseUtc("2024-02-29T08:00:00.5z")).isEqualTo(Instant.parse("2024-02-29T08:00:00.500Z"));
    }

    /** The general path of RecordCodec: space to T, upper case, OffsetDateTime; null when it refuses. */
    private static Instant javaTime(String s) {
        try {
            String iso = s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + 'T' + s.substring(11) : s;
            return OffsetDateTime.parse(iso.toUpperCase(Locale.ROOT)).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    @Provide
    Arbitrary<Instant> instants() {
        return Arbitraries.longs()
                .between(
                        Instant.parse("0000-01-01T00:00:00Z").getEpochSecond(),
                        Instant.parse("9999-12-31T23:59:59Z").getEpochSecond())
                .flatMap(sec -> Arbitraries.integers().between(0, 999_999_999).map(n -> Instant.ofEpochSecond(sec, n)));
    }

    @Provide
    Arbitrary<Integer> fractions() {
        return Arbitraries.integers().between(0, 9);
    }

    @Provide
    Arbitrary<String> separators() {
        return Arbitraries.of("TZ", "tz", " Z", "Tz", "tZ");
    }

    /** Canonical times with one or two characters replaced, inserted or removed. */
    @Provide
    Arbitrary<String> nearlyCanonical() {
        Arbitrary<Character> c =
                Arbitraries.of('0', '1', '2', '3', '5', '9', '-', ':', '.', 'T', 't', 'Z', 'z', ' ', '+');
        return Arbitraries.lazy(this::instants)
                .map(RecordCodec::formatTime)
                .flatMap(s -> Arbitraries.integers()
                        .between(0, s.length() - 1)
                        .flatMap(i -> c.flatMap(ch -> Arbitraries.of(0, 1, 2).map(op -> switch (op) {
                            case 0 -> s.substring(0, i) + ch + s.substring(i + 1);
                            case 1 -> s.substring(0, i) + ch + s.substring(i);
                            default -> s.substring(0, i) + s.substring(i + 1);
                        }))));
    }
}
