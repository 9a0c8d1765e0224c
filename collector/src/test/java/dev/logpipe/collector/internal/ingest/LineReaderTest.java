package dev.logpipe.collector.internal.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class LineReaderTest {
    /** A stream that hands out at most {@code chunk} bytes per read. */
    private static InputStream chunked(byte[] body, int chunk) {
        return new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    private static List<String> read(InputStream in, int maxLine) throws IOException {
        LineReader r = new LineReader(in, maxLine);
        List<String> out = new ArrayList<>();
        while (r.next()) {
            out.add(r.number() + ":"
                    + (r.tooLong() > 0
                            ? "TOO_LONG(" + r.tooLong() + ")"
                            : new String(r.array(), r.offset(), r.length(), StandardCharsets.ISO_8859_1)));
        }
        return out;
    }

    /** The reference: split the whole body, as the collector did before it streamed. */
    private static List<String> split(byte[] body, int maxLine) {
        List<String> out = new ArrayList<>();
        int start = 0;
        int n = 0;
        while (start < body.length) {
            int nl = start;
            while (nl < body.length && body[nl] != '\n') {
                nl++;
            }
            int len = nl > start && body[nl - 1] == '\r' ? nl - start - 1 : nl - start;
            n++;
            out.add(n + ":"
                    + (len > maxLine
                            ? "TOO_LONG(" + len + ")"
                            : new String(body, start, len, StandardCharsets.ISO_8859_1)));
            start = nl + 1;
        }
        return out;
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return Arbitraries.of("a", "bb", "\n", "\r", "\r\n", " ", "0123456789", "\n\n")
                .list()
                .ofMaxSize(300)
                .map(l -> String.join("", l).getBytes(StandardCharsets.ISO_8859_1));
    }

    @Property(tries = 500)
    void linesAreTheSameWhateverTheReadChunks(
            @ForAll("bodies") byte[] body,
            @ForAll @IntRange(min = 1, max = 70) int chunk,
            @ForAll @IntRange(min = 1, max = 40) int maxLine)
            throws IOException {
        // A too-long line's reported length may include its '\r' when it arrives in pieces; compare the verdicts.
        assertThat(read(chunked(body, chunk), maxLine).stream()
                        .map(LineReaderTest::verdict)
                        .toList())
                .isEqualTo(split(body, maxLine).stream()
                        .map(LineReaderTest::verdict)
                        .toList());
    }

    private static String verdict(String line) {
        return line.contains("TOO_LONG(") ? line.substring(0, line.indexOf("TOO_LONG(")) + "TOO_LONG" : line;
    }

    @Test
    void aLineLongerThanTheLimitIsReportedWithItsLengthAndItsNeighboursKept() throws IOException {
        byte[] body = ("short\n" + "x".repeat(200_000) + "\nafter").getBytes(StandardCharsets.US_ASCII);
        assertThat(read(chunked(body, 65536), 1000)).containsExactly("1:short", "2:TOO_LONG(200000)", "3:after");
    }

    @Test
    void theLineBufferNeverGrowsPastTheLimit() throws IOException {
        LineReader r =
                new LineReader(chunked(("y".repeat(50_000) + "\n").getBytes(StandardCharsets.US_ASCII), 100), 1000);
        assertThat(r.next()).isTrue();
        assertThat(r.tooLong()).isEqualTo(50_000);
        assertThat(r.heldBytes()).isLessThanOrEqualTo(64 * 1024 + 1001);
    }

    @Test
    void theLineBufferGrowsOnlyWhenItsNewSizeIsGranted() {
        List<Long> asked = new ArrayList<>();
        LineReader r = new LineReader(
                chunked(("z".repeat(5_000) + "\n").getBytes(StandardCharsets.US_ASCII), 100), 10_000, capacity -> {
                    asked.add(capacity);
                    return capacity <= 2_048;
                });
        Assertions.assertThatThrownBy(r::next)
                .isInstanceOfSatisfying(
                        BodyException.class, e -> assertThat(e.status()).isEqualTo(503));
        assertThat(asked).isNotEmpty().allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(4_096));
        assertThat(r.heldBytes()).isLessThanOrEqualTo(64 * 1024 + 2_048);
    }
}
