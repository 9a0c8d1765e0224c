package dev.logpipe.forwarder.internal.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.TimeLayout;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every layout on real examples, with and without zones, around a DST change and New Year. */
class TimeParsersTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final InstantSource NOW = InstantSource.fixed(Instant.parse("2026-12-01T10:00:00Z"));

    private static long parse(TimeLayout layout, ZoneId zone, String text) {
        return TimeParsers.of(layout, zone, null, NOW).parse(text);
    }

    private static long at(String iso) {
        Instant i = Instant.parse(iso);
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "2026-12-01T08:00:00Z|2026-12-01T08:00:00Z",
                "2026-12-01T08:00:00.123456789Z|2026-12-01T08:00:00.123456789Z",
                "2026-12-01t08:00:00.5z|2026-12-01T08:00:00.500Z",
                "2026-12-01 08:00:00.123+01:00|2026-12-01T07:00:00.123Z",
                "2026-12-01T08:00:00-0530|2026-12-01T13:30:00Z",
                "2026-12-01T08:00:00+02|2026-12-01T06:00:00Z",
                "2026-12-01T08:00:00.1234567891234Z|2026-12-01T08:00:00.123456789Z",
                "2026-12-01T08:00:00|2026-12-01T07:00:00Z",
                "2026-07-01T08:00:00|2026-07-01T06:00:00Z",
                "2026-12-01 08:00:00,250|2026-12-01T07:00:00.250Z",
            })
    void rfc3339WithAndWithoutOffsetAndFraction(String text, String expected) {
        assertThat(parse(TimeLayout.RFC3339, BERLIN, text)).isEqualTo(at(expected));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "2026-12-01 08:00:00,000|2026-12-01T08:00:00Z",
                "2026-12-01 08:00:00,999|2026-12-01T08:00:00.999Z",
                "2024-02-29 23:59:59,001|2024-02-29T23:59:59.001Z",
            })
    void log4jLayoutIsLocalToTheZone(String text, String expected) {
        assertThat(parse(TimeLayout.LOG4J, ZoneOffset.UTC, text)).isEqualTo(at(expected));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "02/Jan/2006:15:04:05 -0700|2006-01-02T22:04:05Z",
                "10/Oct/2000:13:55:36 +0000|2000-10-10T13:55:36Z",
                "31/dec/2026:23:59:59 +0100|2026-12-31T22:59:59Z",
            })
    void commonLogFormat(String text, String expected) {
        assertThat(parse(TimeLayout.COMMON_LOG, ZoneOffset.UTC, text)).isEqualTo(at(expected));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "1764576000|2025-12-01T08:00:00Z|EPOCH_S",
                "1764576000.25|2025-12-01T08:00:00.250Z|EPOCH_S",
                "1764576000123|2025-12-01T08:00:00.123Z|EPOCH_MS",
                "1764576000123.5|2025-12-01T08:00:00.123500Z|EPOCH_MS",
                "1764576000123456|2025-12-01T08:00:00.123456Z|EPOCH_US",
                "1764576000123456789|2025-12-01T08:00:00.123456789Z|EPOCH_NS",
            })
    void epochInEachUnit(String text, String expected, TimeLayout layout) {
        assertThat(parse(layout, ZoneOffset.UTC, text)).isEqualTo(at(expected));
    }

    @Test
    void textInAnotherLayoutIsNoTimestamp() {
        for (String bad : new String[] {
            "",
            "2026-13-01T08:00:00Z",
            "2026-02-30T08:00:00Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T08:00:00+25:00",
            "2026-12-01T08:00:00Zjunk",
            "2026-12-01T08:00:00.Z",
            "2026-12-01",
            "not a time",
            "2026-12-01T08:00:00 +01:00",
            "2026-12-01T08:60:00Z"
        }) {
            assertThat(parse(TimeLayout.RFC3339, ZoneOffset.UTC, bad)).as(bad).isEqualTo(TimeParser.NONE);
        }
        assertThat(parse(TimeLayout.COMMON_LOG, ZoneOffset.UTC, "02/Foo/2006:15:04:05 -0700"))
                .isEqualTo(TimeParser.NONE);
        assertThat(parse(TimeLayout.SYSLOG, ZoneOffset.UTC, "Jan 32 15:04:05")).isEqualTo(TimeParser.NONE);
        assertThat(parse(TimeLayout.EPOCH_MS, ZoneOffset.UTC, "12e3")).isEqualTo(TimeParser.NONE);
        assertThat(parse(TimeLayout.EPOCH_NS, ZoneOffset.UTC, "99999999999999999999"))
                .isEqualTo(TimeParser.NONE);
        assertThat(parse(TimeLayout.RFC3339, ZoneOffset.UTC, "2026-12-01T08:00:00\u00e9"))
                .isEqualTo(TimeParser.NONE);
    }

    @Test
    void localTimesAcrossTheSpringDstChangeInBerlin() {
        // 29 March 2026: 02:00 CET becomes 03:00 CEST.
        assertThat(parse(TimeLayout.LOG4J, BERLIN, "2026-03-29 01:59:59,000")).isEqualTo(at("2026-03-29T00:59:59Z"));
        assertThat(parse(TimeLayout.LOG4J, BERLIN, "2026-03-29 03:00:00,000")).isEqualTo(at("2026-03-29T01:00:00Z"));
        // In the gap: moved forward by the gap's length, like ZonedDateTime.ofLocal.
        assertThat(parse(TimeLayout.LOG4J, BERLIN, "2026-03-29 02:30:00,000")).isEqualTo(at("2026-03-29T01:30:00Z"));
    }

    @Test
    void localTimesAcrossTheAutumnDstChangeInBerlin() {
        // 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:00-03:00 happens twice.
        TimeParser p = TimeParsers.of(TimeLayout.RFC3339, BERLIN, null, NOW);
        assertThat(p.parse("2026-10-25T01:59:59")).isEqualTo(at("2026-10-24T23:59:59Z"));
        assertThat(p.parse("2026-10-25T02:30:00")).isEqualTo(at("2026-10-25T00:30:00Z")); // the earlier occurrence
        assertThat(p.parse("2026-10-25T03:00:00")).isEqualTo(at("2026-10-25T02:00:00Z"));
        // The cache of the last hour's offset must not leak across the change (same parser, back again).
        assertThat(p.parse("2026-10-25T01:30:00")).isEqualTo(at("2026-10-24T23:30:00Z"));
        assertThat(p.parse("2026-10-25T03:30:00")).isEqualTo(at("2026-10-25T02:30:00Z"));
    }

    @Test
    void syslogTimesTakeTheYearOfTheClock() {
        TimeParser p = TimeParsers.of(TimeLayout.SYSLOG, ZoneOffset.UTC, null, NOW);
        assertThat(p.parse("Dec  1 09:59:00")).isEqualTo(at("2026-12-01T09:59:00Z"));
        assertThat(p.parse("Dec 01 09:59:00")).isEqualTo(at("2026-12-01T09:59:00Z"));
        assertThat(p.parse("Mar  3 01:02:03.5")).isEqualTo(at("2026-03-03T01:02:03.500Z"));
        assertThat(p.parse("Jan  5 00:00:00"))
                .as("eleven months ago, not next month")
                .isEqualTo(at("2026-01-05T00:00:00Z"));
        assertThat(p.parse("Dec  5 00:00:00"))
                .as("a few days ahead of the clock")
                .isEqualTo(at("2026-12-05T00:00:00Z"));
        assertThat(p.parse("Dec 25 00:00:00")).as("weeks ahead: last year's").isEqualTo(at("2025-12-25T00:00:00Z"));
    }

    @Test
    void syslogTimesAroundNewYear() {
        TimeParser justAfter = TimeParsers.of(
                TimeLayout.SYSLOG,
                BERLIN,
                null,
                InstantSource.fixed(Instant.parse("2026-12-31T23:00:30Z"))); // 00:00:30 on 1 Jan 2027 in Berlin
        assertThat(justAfter.parse("Dec 31 23:59:58")).isEqualTo(at("2026-12-31T22:59:58Z"));
        assertThat(justAfter.parse("Jan  1 00:00:10")).isEqualTo(at("2026-12-31T23:00:10Z"));
        TimeParser justBefore = TimeParsers.of(
                TimeLayout.SYSLOG, ZoneOffset.UTC, null, InstantSource.fixed(Instant.parse("2026-12-31T23:59:50Z")));
        assertThat(justBefore.parse("Jan  1 00:00:05"))
                .as("writer's clock a little ahead")
                .isEqualTo(at("2027-01-01T00:00:05Z"));
        assertThat(justBefore.parse("Dec 31 23:59:49")).isEqualTo(at("2026-12-31T23:59:49Z"));
    }

    @Test
    void syslogLeapDayBelongsToTheLastLeapYear() {
        TimeParser p = TimeParsers.of(TimeLayout.SYSLOG, ZoneOffset.UTC, null, NOW);
        assertThat(p.parse("Feb 29 12:00:00")).isEqualTo(at("2024-02-29T12:00:00Z"));
    }

    @Test
    void patternWithAZoneForTextWithoutOne() {
        TimeParser p = TimeParsers.of(TimeLayout.PATTERN, BERLIN, "dd.MM.yyyy HH:mm:ss.SSS", NOW);
        assertThat(p.parse("01.07.2026 12:00:00.250")).isEqualTo(at("2026-07-01T10:00:00.250Z"));
        assertThat(p.parse("01.12.2026 12:00:00.250")).isEqualTo(at("2026-12-01T11:00:00.250Z"));
        assertThat(p.parse("2026-12-01 12:00")).isEqualTo(TimeParser.NONE);
        assertThat(p.parse("01.12.2026 12:00")).isEqualTo(TimeParser.NONE);
        TimeParser withOffset = TimeParsers.of(TimeLayout.PATTERN, BERLIN, "yyyy/MM/dd HH:mm:ss XXX", NOW);
        assertThat(withOffset.parse("2026/12/01 12:00:00 -05:00")).isEqualTo(at("2026-12-01T17:00:00Z"));
    }
}
