package dev.logpipe.forwarder.internal.parse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.internal.time.TimeParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CRI and Docker lines decoded and reassembled, with the offsets a watermark may take. */
class ContainerLinesTest {
    record Rec(String text, long start, long end, long time, int flags, boolean truncated) {}

    private final List<Rec> out = new ArrayList<>();
    private final List<Long> floors = new ArrayList<>();
    private ContainerLines lines;
    private final Emitter emitter = (b, off, len, start, end, n, truncated, time, flags) -> {
        out.add(new Rec(new String(b, off, len, StandardCharsets.UTF_8), start, end, time, flags, truncated));
        floors.add(lines.holdFloor());
    };
    private long offset;

    private void feed(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        long end = offset + b.length + 1;
        lines.line(b, 0, b.length, offset, end, false, 0, new LineParser(), emitter);
        offset = end;
    }

    @Test
    void criPiecesAreReassembledFromTheFirstPieceToTheLastOne() {
        lines = new CriLines(1024);
        feed("2026-12-01T08:00:00.000000001Z stdout P {\"msg\":");
        assertThat(lines.holdFloor()).isZero();
        feed("2026-12-01T08:00:00.5Z stdout P \"long \"");
        feed("2026-12-01T08:00:01Z stdout F ,\"n\":1}");
        feed("2026-12-01T08:00:02Z stderr F oops");
        assertThat(out)
                .containsExactly(
                        new Rec("{\"msg\":\"long \",\"n\":1}", 0, 126, 1796112000_000_000_001L, Emitter.STDOUT, false),
                        new Rec("oops", 126, 161, 1796112002_000_000_000L, Emitter.STDERR, false));
        assertThat(lines.hasPending()).isFalse();
    }

    @Test
    void aLineOfTheOtherStreamBetweenPiecesDoesNotEndTheHeldBackLine() {
        lines = new CriLines(1024);
        feed("2026-12-01T08:00:00Z stdout P first half ");
        feed("2026-12-01T08:00:00Z stderr F warning");
        feed("2026-12-01T08:00:00Z stdout F second half");
        assertThat(out).extracting(Rec::text).containsExactly("warning", "first half second half");
        assertThat(floors.get(0))
                .as("the stdout piece is still held when stderr's line goes out")
                .isZero();
        assertThat(out.get(1).start()).isZero();
    }

    @Test
    void aReassembledLineIsBoundedAndMarkedTruncated() {
        lines = new CriLines(10);
        feed("2026-12-01T08:00:00Z stdout P 0123456");
        feed("2026-12-01T08:00:00Z stdout P 789abc");
        feed("2026-12-01T08:00:00Z stdout F def");
        assertThat(out)
                .containsExactly(new Rec("0123456789", 0, offset, 1796112000_000_000_000L, Emitter.STDOUT, true));
    }

    @Test
    void heldBackPiecesCanBeFlushedAsPartialRecords() {
        lines = new CriLines(1024);
        feed("2026-12-01T08:00:00Z stdout P cut by a rotation");
        lines.flushPartials(offset, 0, new LineParser(), emitter);
        assertThat(out)
                .containsExactly(new Rec(
                        "cut by a rotation",
                        0,
                        offset,
                        1796112000_000_000_000L,
                        Emitter.STDOUT | Emitter.PARTIAL,
                        false));
        assertThat(lines.hasPending()).isFalse();
    }

    @Test
    void criFramesAreDecodedWhereverTheLineStartsInTheBuffer() {
        lines = new CriLines(1024);
        String[] frames = {
            "2026-12-01T08:00:00Z stdout F a b",
            "2026-12-01T08:00:00.123456789Z stderr F:X x",
            "2026-12-01T08:00:00.1Z stdout F",
            "2026-12-01T08:00:00Z stdout F  two spaces"
        };
        for (int pad = 0; pad < 17; pad++) {
            for (String f : frames) {
                byte[] line = f.getBytes(StandardCharsets.UTF_8);
                byte[] b = new byte[pad + line.length + pad];
                Arrays.fill(b, (byte) ' '); // spaces around the line must not be taken for its separators
                System.arraycopy(line, 0, b, pad, line.length);
                lines.line(b, pad, line.length, 0, 1, false, 0, new LineParser(), emitter);
            }
        }
        assertThat(out).hasSize(17 * frames.length);
        for (int k = 0; k < out.size(); k += frames.length) {
            assertThat(out.subList(k, k + frames.length))
                    .extracting(Rec::text)
                    .containsExactly("a b", "x", "", " two spaces");
            assertThat(out.get(k + 1).flags()).isEqualTo(Emitter.STDERR);
            assertThat(out.get(k + 1).time()).isEqualTo(1796112000_123456789L);
        }
        assertThat(lines.takeMalformed()).isZero();
    }

    @Test
    void linesNotInTheFormatGoOnAsTextAndAreCounted() {
        lines = new CriLines(1024);
        feed("not a cri line");
        feed("2026-12-01T08:00:00Z stdin F x");
        feed("2026-12-01T08:00:00Z stdout F");
        assertThat(out).extracting(Rec::text).containsExactly("not a cri line", "2026-12-01T08:00:00Z stdin F x", "");
        assertThat(out.get(0).time()).isEqualTo(TimeParser.NONE);
        assertThat(lines.takeMalformed()).isEqualTo(2);
    }

    @Test
    void dockerSixteenKibPiecesAreReassembled() {
        lines = new DockerLines(64 * 1024);
        String big = "x".repeat(16 * 1024);
        feed("{\"log\":\"" + big + "\",\"stream\":\"stdout\",\"time\":\"2026-12-01T08:00:00.1Z\"}");
        feed("{\"log\":\"" + big + "\",\"stream\":\"stdout\",\"time\":\"2026-12-01T08:00:00.2Z\"}");
        feed("{\"log\":\"tail \\\"q\\\" \\u00e9\\n\",\"stream\":\"stdout\",\"time\":\"2026-12-01T08:00:00.3Z\"}");
        feed("{\"log\":\"err\\r\\n\",\"stream\":\"stderr\",\"time\":\"2026-12-01T08:00:01Z\",\"attrs\":{\"a\":\"b\"}}");
        assertThat(out).hasSize(2);
        assertThat(out.get(0).text()).isEqualTo(big + big + "tail \"q\" \u00e9");
        assertThat(out.get(0).start()).isZero();
        assertThat(out.get(0).time()).isEqualTo(1796112000_100_000_000L);
        assertThat(out.get(0).flags()).isEqualTo(Emitter.STDOUT);
        assertThat(out.get(1))
                .isEqualTo(new Rec("err", out.get(1).start(), offset, 1796112001_000_000_000L, Emitter.STDERR, false));
    }

    @Test
    void dockerLinesNotInTheFormatGoOnAsText() {
        lines = new DockerLines(1024);
        feed("{\"log\":1,\"stream\":\"stdout\"}");
        feed("{\"stream\":\"stdout\"}");
        feed("plain");
        assertThat(out)
                .extracting(Rec::text)
                .containsExactly("{\"log\":1,\"stream\":\"stdout\"}", "{\"stream\":\"stdout\"}", "plain");
        assertThat(lines.takeMalformed()).isEqualTo(3);
    }

    @Test
    void kubernetesNamesComeFromTheFileName() {
        String id = "0123456789abcdef".repeat(4);
        assertThat(KubernetesNames.of("billing-7d9f8-x2x4z_payments_api-server-" + id + ".log"))
                .isEqualTo(new KubernetesNames("billing-7d9f8-x2x4z", "payments", "api-server", id));
        assertThat(KubernetesNames.of("app.log")).isNull();
        assertThat(KubernetesNames.of("a_b_c-123.log")).isNull();
        assertThat(KubernetesNames.of("a_b_c_d-" + id + ".log")).isNull();
        assertThat(new KubernetesNames("p", "ns", "c", id).service("{namespace}/{container}"))
                .isEqualTo("ns/c");
    }
}
