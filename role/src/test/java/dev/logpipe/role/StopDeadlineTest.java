package dev.logpipe.role;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stop that hangs (as the standalone's broker close did in issue 24) no longer keeps a SIGTERMed JVM alive: not the
 * standalone's, and not a role's ({@code logpipe collector|indexer|query} stop through {@link RoleLifecycle}).
 */
@Integration
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

    /** A role process whose close hangs, run by {@link RoleLifecycle} with a 1 s stop deadline. */
    public static final class HangingRole {
        public static void main(String[] args) throws Exception {
            // "started" once the stop hook is registered: a SIGTERM before it would end the JVM the default way
            RoleLifecycle lifecycle = new RoleLifecycle(
                    "logpipe hanging",
                    System.out,
                    System.err,
                    hook -> {
                        Runtime.getRuntime().addShutdownHook(hook);
                        System.out.println("started");
                        System.out.flush();
                    },
                    Duration.ofSeconds(1));
            System.exit(
                    lifecycle.run(Path.of("role.yaml"), false, f -> "ok", c -> () -> new CountDownLatch(1).await()));
        }
    }

    @Test
    void aRoleWhoseCloseHangsIsHaltedAtItsDeadline() {
        try (ChildJvm role = ChildJvm.start(work, "role", HangingRole.class.getName(), List.of())) {
            role.awaitStdout("started", Duration.ofSeconds(30));
            assertThat(role.terminate(Duration.ofSeconds(20))).isEqualTo(StopDeadline.HALTED);
            assertThat(role.stderr()).contains("logpipe hanging: did not stop within 1 s; halting");
        }
    }
}
