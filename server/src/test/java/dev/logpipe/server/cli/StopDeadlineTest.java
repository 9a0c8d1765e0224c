package dev.logpipe.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stop that hangs (as the standalone's broker close did in issue 24) no longer keeps a SIGTERMed JVM alive. */
class StopDeadlineTest {
    @TempDir
    Path work;

    /** A child whose shutdown hook hangs forever, under a 1 s deadline when {@code args[0]} is "deadline". */
    public static final class HangingStop {
        public static void main(String[] args) throws Exception {
            Runnable hang = () -> {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (args[0].equals("deadline")) {
                    StopDeadline.run("hanging", Duration.ofSeconds(1), System.err, hang);
                } else {
                    hang.run();
                }
            }));
            System.out.println("started");
            System.out.flush();
            new CountDownLatch(1).await();
        }
    }

    @Test
    void aStopThatHangsIsHaltedAtItsDeadline() {
        try (ChildJvm plain = ChildJvm.start(work, "plain", HangingStop.class.getName(), List.of("none"));
                ChildJvm bounded = ChildJvm.start(work, "bounded", HangingStop.class.getName(), List.of("deadline"))) {
            plain.awaitStdout("started", Duration.ofSeconds(30));
            bounded.awaitStdout("started", Duration.ofSeconds(30));
            ProcessHandle.of(plain.pid()).orElseThrow().destroy(); // SIGTERM
            assertThat(bounded.terminate(Duration.ofSeconds(20))).isEqualTo(StopDeadline.HALTED);
            assertThat(bounded.stderr()).contains("hanging: did not stop within 1 s; halting");
            assertThat(plain.isAlive())
                    .as("without a deadline the SIGTERMed JVM hangs")
                    .isTrue();
        }
    }
}
