package dev.logpipe.forwarder.internal.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class MultilineParserTest {
    record Rec(String text, long start, long end, int lines, boolean truncated) {}

    private final List<Rec> out = new ArrayList<>();
    private final Emitter emitter = (b, off, len, start, end, lines, truncated, time, flags) ->
            out.add(new Rec(new String(b, off, len, StandardCharsets.UTF_8), start, end, lines, truncated));

    private static void feed(MultilineParser p, List<String> lines, long now, Emitter e) {
        long offset = 0;
        for (String l : lines) {
            long end = offset + l.length() + 1;
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length, offset, end, false, Long.MIN_VALUE, 0, now, e);
            offset = end;
        }
    }

    @Test
    void nextHeaderCommitsThePreviousRecordAtTheEndOfItsLastLine() {
        MultilineParser p = new MultilineParser("^\\d{4}-", Duration.ofMillis(100), 1 << 20, 100);
        feed(p, List.of("2026-01 error", "  at a", "  at b", "2026-02 next"), 0, emitter);
        assertThat(out).containsExactly(new Rec("2026-01 error\n  at a\n  at b", 0, 28, 3, false));
        assertThat(p.hasPending()).isTrue();
    }

    @Test
    void trailingRecordIsEmittedOnlyAfterTheIdleFlushInterval() {
        MultilineParser p = new MultilineParser("^H", Duration.ofMillis(100), 1 << 20, 100);
        feed(p, List.of("H one", "cont"), 1_000_000_000L, emitter);
        assertThat(p.flushIfIdle(1_000_000_000L + 99_000_000L, emitter)).isFalse();
        assertThat(out).isEmpty();
        assertThat(p.flushIfIdle(1_000_000_000L + 100_000_000L, emitter)).isTrue();
        assertThat(out).containsExactly(new Rec("H one\ncont", 0, 11, 2, false));
        assertThat(p.hasPending()).isFalse();
    }

    @Test
    void zeroFlushIntervalHoldsTheTailUntilAHeaderOrShutdown() {
        MultilineParser p = new MultilineParser("^H", Duration.ZERO, 1 << 20, 100);
        feed(p, List.of("H one", "cont"), 0, emitter);
        assertThat(p.flushIfIdle(Long.MAX_VALUE / 2, emitter)).isFalse();
        p.flush(emitter);
        assertThat(out).containsExactly(new Rec("H one\ncont", 0, 11, 2, false));
    }

    @Test
    void recordBeyondTheLimitsIsCutAndMarkedButStillCoversAllItsLines() {
        MultilineParser p = new MultilineParser("^H", Duration.ZERO, 12, 2);
        feed(p, List.of("H 123456", "c1", "c2", "c3", "H next"), 0, emitter);
        Rec r = out.get(0);
        assertThat(r.text()).isEqualTo("H 123456\nc1");
        assertThat(r.truncated()).isTrue();
        assertThat(r.lines()).isEqualTo(4);
        assertThat(r.end()).isEqualTo(18);
    }

    @Provide
    Arbitrary<List<String>> logLines() {
        Arbitrary<String> header = Arbitraries.strings().alpha().ofMaxLength(5).map(s -> "H" + s);
        Arbitrary<String> cont = Arbitraries.strings().alpha().ofMaxLength(5).map(s -> " " + s);
        return Arbitraries.oneOf(header, cont).list().ofMaxSize(40);
    }

    @Property(tries = 300)
    void groupingLosesNoLineAndCommitsContiguousRanges(@ForAll("logLines") List<String> lines) {
        out.clear();
        MultilineParser p = new MultilineParser("^H", Duration.ZERO, 1 << 20, 1000);
        feed(p, lines, 0, emitter);
        p.flush(emitter);
        List<String> rejoined = new ArrayList<>();
        long offset = 0;
        for (Rec r : out) {
            assertThat(r.start()).isEqualTo(offset);
            offset = r.end();
            rejoined.addAll(List.of(r.text().split("\n", -1)));
            assertThat(r.text().startsWith("H") || r.start() == 0).isTrue();
        }
        assertThat(rejoined).isEqualTo(lines);
        assertThat(out.stream().mapToInt(Rec::lines).sum()).isEqualTo(lines.size());
    }
}
