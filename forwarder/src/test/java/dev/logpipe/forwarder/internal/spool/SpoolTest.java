package dev.logpipe.forwarder.internal.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.forwarder.StateException;
import dev.logpipe.forwarder.config.ForwarderConfig.WhenFull;
import dev.logpipe.forwarder.internal.sink.SinkBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spool's segments, cursor and recovery on real files. */
class SpoolTest {
    private static final long KIB = 1024;

    @TempDir
    Path dir;

    private Spool open(long maxBytes, long segmentBytes, WhenFull whenFull) throws Exception {
        return Spool.open(dir, maxBytes, segmentBytes, whenFull);
    }

    private static byte[] payload(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Spool.Frame f) {
        return new String(f.payload(), StandardCharsets.UTF_8);
    }

    /** Takes every frame now in the spool, acknowledging each. */
    private static List<String> drain(Spool s) throws Exception {
        List<String> out = new ArrayList<>();
        for (Spool.Frame f; (f = s.next(Duration.ZERO)) != null; ) {
            out.add(text(f));
            s.acknowledge(f);
        }
        return out;
    }

    private long segmentFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".seg")).count();
        }
    }

    @Test
    void framesComeOutInOrderAndDeliveredSegmentsAreDeleted() throws Exception {
        try (Spool s = open(64 * KIB * 4, 64 * KIB, WhenFull.BLOCK)) {
            byte[] big = new byte[20 * 1024];
            for (int i = 0; i < 10; i++) {
                byte[] p = big.clone();
                p[0] = (byte) i;
                s.append(p, 7);
            }
            assertThat(s.pendingRecords()).isEqualTo(70);
            assertThat(segmentFiles()).as("20 KiB frames roll 64 KiB segments").isGreaterThan(2);
            List<Integer> order = new ArrayList<>();
            for (Spool.Frame f; (f = s.next(Duration.ZERO)) != null; ) {
                order.add((int) f.payload()[0]);
                s.acknowledge(f);
            }
            assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            assertThat(s.pendingRecords()).isZero();
            assertThat(segmentFiles())
                    .as("only the segment being written is left")
                    .isEqualTo(1);
        }
    }

    @Test
    void framesNotAcknowledgedBeforeARestartAreDeliveredAgainAndAcknowledgedOnesAreNot() throws Exception {
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("one"), 1);
            s.append(payload("two"), 1);
            s.append(payload("three"), 1);
            s.acknowledge(s.next(Duration.ZERO));
            s.next(Duration.ZERO); // handed out, never acknowledged: the process dies during delivery
        }
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            assertThat(s.pendingRecords()).isEqualTo(2);
            s.append(payload("four"), 1);
            assertThat(drain(s)).containsExactly("two", "three", "four");
        }
    }

    @Test
    void aFrameTornByACrashAtTheEndOfTheNewestSegmentIsCutOff() throws Exception {
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("kept"), 1);
        }
        Path newest;
        try (Stream<Path> files = Files.list(dir)) {
            newest = files.filter(p -> p.toString().endsWith(".seg"))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow();
        }
        // A frame header promising 100 bytes, with only 3 written: what a crash mid-append leaves.
        Files.write(
                newest, new byte[] {0, 0, 0, 100, 0, 0, 0, 1, 1, 2, 3, 4, 'a', 'b', 'c'}, StandardOpenOption.APPEND);
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            assertThat(Files.size(newest))
                    .as("cut back to the last whole frame")
                    .isEqualTo(SegmentFormat.HEADER + 4);
            assertThat(drain(s)).containsExactly("kept");
        }
    }

    @Test
    void aCorruptFrameInAnOlderSegmentStopsStartupNamingTheFile() throws Exception {
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("first run"), 1);
        }
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("second run"), 1); // the first run's segment is now an older one
        }
        Path oldest;
        try (Stream<Path> files = Files.list(dir)) {
            oldest = files.filter(p -> p.toString().endsWith(".seg"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(oldest);
        bytes[bytes.length - 1] ^= 0x55;
        Files.write(oldest, bytes);
        assertThatThrownBy(() -> open(KIB * KIB, 64 * KIB, WhenFull.BLOCK))
                .isInstanceOf(StateException.class)
                .hasMessageContaining(oldest.toString())
                .hasMessageContaining("corrupt at offset 0");
    }

    @Test
    void aCorruptCursorStopsStartupNamingTheFile() throws Exception {
        open(KIB * KIB, 64 * KIB, WhenFull.BLOCK).close();
        Files.writeString(dir.resolve("cursor"), "garbage");
        assertThatThrownBy(() -> open(KIB * KIB, 64 * KIB, WhenFull.BLOCK))
                .isInstanceOf(StateException.class)
                .hasMessageContaining(dir.resolve("cursor").toString());
    }

    @Test
    void whenFullBlockRefusesUntilTheDrainerFreesASegment() throws Exception {
        try (Spool s = open(256 * KIB, 64 * KIB, WhenFull.BLOCK)) {
            byte[] chunk = new byte[60 * 1024];
            for (int i = 0; i < 4; i++) {
                s.append(chunk, 1);
            }
            assertThatThrownBy(() -> s.append(chunk, 1))
                    .isInstanceOf(SinkBusyException.class)
                    .hasMessageContaining("is full");
            assertThat(s.pendingRecords()).as("nothing was dropped").isEqualTo(4);
            s.acknowledge(s.next(Duration.ZERO)); // the first segment is delivered and deleted
            s.append(chunk, 1);
            assertThat(s.pendingRecords()).isEqualTo(4);
            assertThat(s.droppedRecords()).isZero();
        }
    }

    @Test
    void whenFullDropOldestDeletesTheOldestSegmentAndCountsItsRecords() throws Exception {
        try (Spool s = open(256 * KIB, 64 * KIB, WhenFull.DROP_OLDEST)) {
            byte[] chunk = new byte[60 * 1024];
            for (int i = 0; i < 6; i++) {
                byte[] p = chunk.clone();
                p[0] = (byte) i;
                s.append(p, 10);
            }
            assertThat(s.droppedRecords()).isEqualTo(20);
            assertThat(s.bytes()).isLessThanOrEqualTo(256 * KIB);
            List<Integer> left = new ArrayList<>();
            for (Spool.Frame f; (f = s.next(Duration.ZERO)) != null; ) {
                left.add((int) f.payload()[0]);
                s.acknowledge(f);
            }
            assertThat(left).containsExactly(2, 3, 4, 5);
        }
    }

    @Test
    void aFrameLargerThanTheWholeSpoolIsStillTakenWhenTheSpoolIsEmpty() throws Exception {
        try (Spool s = open(1024 * KIB, 64 * KIB, WhenFull.BLOCK)) {
            byte[] huge = new byte[2 * 1024 * 1024];
            s.append(huge, 1);
            assertThat(drain(s)).hasSize(1);
        }
    }

    @Test
    void aDrainerThatKeepsUpFreesEverySealedSegmentSoSteadyTrafficNeverFillsTheSpool() throws Exception {
        try (Spool s = open(256 * KIB, 64 * KIB, WhenFull.BLOCK)) {
            byte[] chunk = new byte[30 * 1024];
            for (int i = 0; i < 100; i++) { // 3 MB through a 256 KiB spool, each frame delivered right away
                s.append(chunk, 1);
                s.acknowledge(s.next(Duration.ZERO));
            }
            assertThat(segmentFiles())
                    .as("sealed, delivered segments are deleted")
                    .isLessThanOrEqualTo(2);
            assertThat(s.bytes()).isLessThanOrEqualTo(64 * KIB + 30 * KIB + SegmentFormat.HEADER);
            assertThat(s.pendingRecords()).isZero();
        }
        try (Spool s = open(256 * KIB, 64 * KIB, WhenFull.BLOCK)) {
            assertThat(s.pendingRecords())
                    .as("nothing is delivered twice after a restart")
                    .isZero();
            assertThat(s.next(Duration.ZERO)).isNull();
        }
    }

    @Test
    void aCorruptFrameInTheMiddleOfTheNewestSegmentStopsStartupInsteadOfCuttingWhatFollows() throws Exception {
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("first"), 1);
            s.append(payload("second"), 1);
        }
        Path newest = newestSegment();
        byte[] bytes = Files.readAllBytes(newest);
        bytes[SegmentFormat.HEADER] ^= 0x55; // inside the first frame's payload
        Files.write(newest, bytes);
        assertThatThrownBy(() -> open(KIB * KIB, 64 * KIB, WhenFull.BLOCK))
                .isInstanceOf(StateException.class)
                .hasMessageContaining(newest + " is corrupt at offset 0");
    }

    @Test
    void zerosAfterTheLastFrameOfTheNewestSegmentAreATornTailNotFrames() throws Exception {
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            s.append(payload("kept"), 1);
        }
        Path newest = newestSegment();
        Files.write(newest, new byte[4096], StandardOpenOption.APPEND); // what a power loss can leave
        try (Spool s = open(KIB * KIB, 64 * KIB, WhenFull.BLOCK)) {
            assertThat(s.pendingRecords()).isEqualTo(1);
            assertThat(drain(s)).containsExactly("kept");
        }
    }

    private Path newestSegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".seg"))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow();
        }
    }
}
