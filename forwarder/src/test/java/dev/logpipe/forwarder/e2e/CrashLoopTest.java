package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kill -9 loop (invariant I3 of docs/architecture.md: at-least-once, duplicates harmless). An application thread appends
 * numbered lines and rotates {@code app.log} (rename to {@code app.log.N}, new {@code app.log}; every name
 * inside the pattern {@code app.log*}) while the forwarder is SIGKILLed ({@link Process#destroyForcibly})
 * at seeded random points and restarted, then finally stopped with SIGTERM.
 *
 * <p>What is proved, per run and in total:
 * <ul>
 *   <li>no line is lost: every written line is in the sink, with the offset it was written at;
 *   <li>a replay carries the same {@code record_id}, distinct lines never share one;
 *   <li>a restarted run re-sends exactly the lines at or after the watermark persisted on disk when the
 *       previous run was killed, and nothing before it (the duplicate window is the flush window);
 *   <li>a kill more than one flush window after the last publish causes no duplicate at all;
 *   <li>{@code log_forwarder_lines_replayed_total} equals the duplicates a run sent when the previous run
 *       was killed while idle. When it was killed while publishing, the counter may be lower by the batches
 *       in flight: the sink had written them but the published-offsets journal is updated only after the
 *       acknowledgement reaches the tail thread, so the counter never over-counts but can under-count.
 * </ul>
 * Before each kill the test waits until the run has re-sent everything after the previous watermark, so
 * every run's replays are complete (and counted) when it is scraped; the kill point after that is random.
 */
class CrashLoopTest extends WorkspaceTest {
    private static final int KILLS = 14;
    /** Kill -9 rounds of this run of the loop. */
    protected int kills = KILLS;

    static final Duration FLUSH_INTERVAL = Duration.ofMillis(200);
    /** Flush interval plus a poll round plus slack: after this, the watermark file holds every commit. */
    private static final long SETTLED_MILLIS = 600;

    RotatingWriter writer;

    /** Line numbers each run delivered, in sink order; index = run. */
    private final List<List<Integer>> segments = new ArrayList<>();

    private final Map<Integer, SinkRecord> firstDelivery = new HashMap<>();
    private final Map<Integer, Integer> firstRun = new HashMap<>();
    private final Map<Integer, List<String>> deliveries = new HashMap<>();
    private final Set<Integer> delivered = new HashSet<>();

    @BeforeEach
    void configure() {
        ws.config()
                .source(ws.logs(), "app.log*")
                .set("watch.state.flush_interval", FLUSH_INTERVAL.toMillis() + "ms")
                .set("watch.rotate_wait", "1s");
        writer = new RotatingWriter(ws.logs(), 700, 8);
    }

    @Test
    void killNineLoopWithRotationLosesNoLineAndReplaysOnlyFromThePersistedWatermark() {
        long seed = Long.getLong("crashloop.seed", 20261201L);
        Random random = new Random(seed);
        writer.start();
        Map<Long, Long> persisted = Map.of(); // inode -> offset in the watermark file after the last kill
        boolean previousKillQuiet = false;
        List<String> summary = new ArrayList<>();
        long replayedTotal = 0;
        long duplicatesTotal = 0;

        for (int run = 0; run <= kills; run++) {
            boolean last = run == kills;
            segments.add(new ArrayList<>());
            ForwarderProcess p = ws.start();
            p.awaitStarted();
            Set<Integer> expectedReplays = replaysExpected(persisted);
            awaitRunHasResent(run, expectedReplays, writer.written().size());

            boolean quiet = !last && random.nextBoolean();
            long delayMillis = 0;
            if (quiet) {
                writer.pause();
                awaitAllWrittenDelivered(run);
                delayMillis = 50 + random.nextInt(750);
            } else if (!last) {
                delayMillis = random.nextInt(700);
            }
            sleepUntilKillPoint(delayMillis);

            if (last) {
                writer.close();
                awaitAllWrittenDelivered(run);
            }
            long replayed = p.counter("log_forwarder_lines_replayed_total");
            if (last) {
                p.stop();
            } else {
                p.kill();
                if (quiet) {
                    writer.resume();
                }
            }
            poll(run);
            persisted = persistedWatermarks();

            List<Integer> segment = segments.get(run);
            assertThat(new HashSet<>(segment))
                    .as("run %d delivers no line twice", run)
                    .hasSameSizeAs(segment);
            Set<Integer> duplicates = new HashSet<>(segment);
            duplicates.retainAll(deliveredBefore(run));
            assertThat(duplicates)
                    .as("run %d re-sent exactly the lines at or after the persisted watermark", run)
                    .isEqualTo(expectedReplays);
            if (previousKillQuiet) {
                assertThat(replayed)
                        .as("lines_replayed of run %d after an idle kill", run)
                        .isEqualTo(duplicates.size());
            } else {
                assertThat(replayed)
                        .as("lines_replayed of run %d never over-counts", run)
                        .isLessThanOrEqualTo(duplicates.size());
            }
            summary.add(String.format(
                    "run %2d: %-22s %5d records, %4d duplicates, replayed=%d",
                    run,
                    last ? "SIGTERM after catch-up" : (quiet ? "idle" : "busy") + " kill after " + delayMillis + " ms",
                    segment.size(),
                    duplicates.size(),
                    replayed));
            replayedTotal += replayed;
            duplicatesTotal += duplicates.size();
            previousKillQuiet = quiet;
            if (quiet && delayMillis >= SETTLED_MILLIS) {
                assertThat(replaysExpected(persisted))
                        .as("an idle kill after the flush window leaves nothing to " + "replay (run %d)", run)
                        .isEmpty();
            }
        }

        List<RotatingWriter.Written> all = writer.written();
        assertThat(delivered).as("every written line delivered").hasSize(all.size());
        assertThat(firstDelivery.values().stream()
                        .map(SinkRecord::recordId)
                        .distinct()
                        .count())
                .as("distinct lines, distinct record ids")
                .isEqualTo(all.size());
        assertThat(writer.inodes().size()).as("rotations happened").isGreaterThan(5);
        System.out.printf(
                "crash loop seed=%d lines=%d files=%d duplicates=%d replayed_counted=%d%n%s%n",
                seed, all.size(), writer.inodes().size(), duplicatesTotal, replayedTotal, String.join("\n", summary));
    }

    /** Lines already delivered whose offset is at or after their file's persisted watermark. */
    private Set<Integer> replaysExpected(Map<Long, Long> persisted) {
        List<Long> inodes = writer.inodes();
        Set<Integer> out = new HashSet<>();
        for (RotatingWriter.Written w : writer.written()) {
            if (delivered.contains(w.number())
                    && w.offset() >= persisted.getOrDefault(inodes.get(w.generation()), 0L)) {
                out.add(w.number());
            }
        }
        return out;
    }

    /** Waits until this run has itself delivered the expected replays and every line older than its start. */
    private void awaitRunHasResent(int run, Set<Integer> replays, int writtenAtStart) {
        Set<Integer> missing = new HashSet<>(replays);
        for (int n = 1; n <= writtenAtStart; n++) {
            if (!delivered.contains(n)) {
                missing.add(n);
            }
        }
        await("run " + run + " to re-send " + replays.size() + " lines and catch up")
                .atMost(Delivered.TIMEOUT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    poll(run);
                    missing.removeAll(segments.get(run));
                    return missing.isEmpty();
                });
    }

    private void awaitAllWrittenDelivered(int run) {
        await("every written line delivered")
                .atMost(Delivered.TIMEOUT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    poll(run);
                    return delivered.size() == writer.count();
                });
    }

    /** Reads new sink records into the current run's segment, checking offsets and record ids. */
    private void poll(int run) {
        for (SinkRecord r : ws.delivered().poll()) {
            int n = RotatingWriter.number(r.message());
            RotatingWriter.Written w = writer.line(n);
            assertThat(w).as("line %d was written", n).isNotNull();
            assertThat(r.message()).isEqualTo(RotatingWriter.text(n));
            assertThat(r.offset()).as("offset of line %d", n).isEqualTo(w.offset());
            deliveries.computeIfAbsent(n, k -> new ArrayList<>()).add("run " + run + ": " + r);
            SinkRecord first = firstDelivery.putIfAbsent(n, r);
            firstRun.putIfAbsent(n, run);
            if (first != null) {
                assertThat(r.recordId())
                        .as(
                                "a replay of line %d in run %d carries the record_id of its first delivery "
                                        + "in run %d (%s); replay: %s; inodes by generation %s; nearby deliveries:%n%s%nlogs:%n%s",
                                n, run, firstRun.get(n), first, r, writer.inodes(), around(n), logs())
                        .isEqualTo(first.recordId());
            }
            segments.get(run).add(n);
            delivered.add(n);
        }
    }

    private Set<Integer> deliveredBefore(int run) {
        Set<Integer> s = new HashSet<>();
        for (int i = 0; i < run; i++) {
            s.addAll(segments.get(i));
        }
        return s;
    }

    /** inode -> offset of the watermark file as the killed run left it on disk. */
    private Map<Long, Long> persistedWatermarks() {
        Map<Long, Long> out = new HashMap<>();
        for (Map.Entry<String, WatermarkFile.Entry> e :
                WatermarkFile.read(ws.watermarks()).entrySet()) {
            Long before = out.put(e.getValue().inode(), e.getValue().offset());
            assertThat(before).as("one entry per file identity; %s", e.getKey()).isNull();
        }
        return out;
    }

    private String around(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = n - 3; i <= n + 8; i++) {
            b.append(i).append(": ").append(deliveries.get(i)).append('\n');
        }
        return b.toString();
    }

    /** Every run's log, for failure messages. */
    private String logs() {
        StringBuilder b = new StringBuilder();
        for (ForwarderProcess p : ws.processes()) {
            b.append("---- ").append(p).append('\n').append(p.log());
        }
        return b.toString();
    }

    /** The random kill point: deliberately a plain sleep, since nothing is awaited here. */
    private static void sleepUntilKillPoint(long millis) {
        try {
            // sleep: kill point: random, nothing is awaited
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
