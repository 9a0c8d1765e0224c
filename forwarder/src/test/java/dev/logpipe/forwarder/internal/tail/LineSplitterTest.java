package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LineSplitterTest {
    record Line(String text, long start, long end, boolean truncated) {}

    private static List<Line> split(
            byte[] data, List<Integer> chunkSizes, int max, long startOffset, LineSplitter[] keep) {
        List<Line> out = new ArrayList<>();
        LineSplitter s = new LineSplitter(max, startOffset);
        keep[0] = s;
        int pos = 0;
        int k = 0;
        while (pos < data.length) {
            int n = Math.min(
                    data.length - pos, chunkSizes.isEmpty() ? data.length : chunkSizes.get(k++ % chunkSizes.size()));
            // Copy into a fresh array so the splitter cannot rely on bytes it was not given.
            byte[] chunk = new byte[n + 7];
            System.arraycopy(data, pos, chunk, 3, n);
            s.feed(
                    chunk,
                    3,
                    n,
                    (b, off, len, start, end, truncated) -> out.add(
                            new Line(new String(b, off, len, StandardCharsets.ISO_8859_1), start, end, truncated)));
            pos += n;
        }
        return out;
    }

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.strings().withChars("ab\n\r\"é").ofMaxLength(400);
    }

    @Provide
    Arbitrary<List<Integer>> chunks() {
        return Arbitraries.integers().between(1, 64).list().ofMinSize(1).ofMaxSize(20);
    }

    @Property(tries = 500)
    void chunkBoundariesNeverChangeTheLines(
            @ForAll("text") String text,
            @ForAll("chunks") List<Integer> chunks,
            @ForAll @IntRange(min = 1, max = 50) int max) {
        byte[] data = text.getBytes(StandardCharsets.ISO_8859_1);
        LineSplitter[] s = new LineSplitter[1];
        List<Line> whole = split(data, List.of(), max, 100, s);
        List<Line> chunked = split(data, chunks, max, 100, s);
        assertThat(chunked).isEqualTo(whole);
    }

    @Property(tries = 500)
    void emitsExactlyTheCompleteLinesAndKeepsThePartialOne(
            @ForAll("text") String text, @ForAll("chunks") List<Integer> chunks) {
        byte[] data = text.getBytes(StandardCharsets.ISO_8859_1);
        LineSplitter[] s = new LineSplitter[1];
        List<Line> lines = split(data, chunks, 10_000, 0, s);

        int lastNewline = text.lastIndexOf('\n');
        String complete = lastNewline < 0 ? "" : text.substring(0, lastNewline + 1);
        List<String> expected = new ArrayList<>();
        for (String l : complete.split("\n", -1)) {
            expected.add(l.endsWith("\r") ? l.substring(0, l.length() - 1) : l);
        }
        expected.remove(expected.size() - 1);
        assertThat(lines).extracting(Line::text).isEqualTo(expected);
        assertThat(s[0].committedBoundary()).isEqualTo(lastNewline + 1);
        assertThat(s[0].pendingBytes()).isEqualTo(data.length - (lastNewline + 1));
        long offset = 0;
        for (Line l : lines) {
            assertThat(l.start()).isEqualTo(offset);
            assertThat(data[(int) l.end() - 1]).isEqualTo((byte) '\n');
            offset = l.end();
        }
    }

    @Test
    void overlongLineIsCutToTheLimitAndMarkedTruncatedAcrossChunks() {
        String longLine = "x".repeat(1000);
        byte[] data = (longLine + "\nshort\n").getBytes(StandardCharsets.US_ASCII);
        LineSplitter[] s = new LineSplitter[1];
        List<Line> lines = split(data, List.of(7, 300, 13), 64, 0, s);
        assertThat(lines)
                .containsExactly(new Line("x".repeat(64), 0, 1001, true), new Line("short", 1001, 1007, false));
    }

    @Test
    void lineWithoutNewlineIsNotEmittedUntilItsNewlineArrives() {
        LineSplitter s = new LineSplitter(100, 0);
        List<String> out = new ArrayList<>();
        LineSplitter.LineConsumer c = (b, off, len, start, end, t) -> out.add(new String(b, off, len));
        s.feed("half".getBytes(), 0, 4, c);
        assertThat(out).isEmpty();
        assertThat(s.committedBoundary()).isZero();
        s.feed(" done\n".getBytes(), 0, 6, c);
        assertThat(out).containsExactly("half done");
        assertThat(s.committedBoundary()).isEqualTo(10);
    }

    @Property(tries = 300)
    void swarNewlineSearchAgreesWithAPlainScan(@ForAll("text") String text, @ForAll @IntRange(max = 20) int from) {
        byte[] data = text.getBytes(StandardCharsets.ISO_8859_1);
        int start = Math.min(from, data.length);
        int expected = -1;
        for (int i = start; i < data.length; i++) {
            if (data[i] == '\n') {
                expected = i;
                break;
            }
        }
        assertThat(LineSplitter.indexOf(data, start, data.length)).isEqualTo(expected);
    }
}
