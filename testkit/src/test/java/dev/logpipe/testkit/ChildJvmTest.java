package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The child-process driver the crash tests depend on: output capture, waiting, SIGTERM and SIGKILL. */
@Integration
class ChildJvmTest {
    /** The child: prints its arguments, then either exits with the code given or sleeps until stopped. */
    public static final class Echo {
        public static void main(String[] args) throws Exception {
            System.out.println("args=" + String.join(",", args));
            System.out.println("env=" + System.getenv("CHILD_JVM_TEST_VALUE"));
            // the hook before the ready line: a SIGTERM sent on seeing the line must find it registered
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println("shutdown hook ran")));
            System.err.println("echo ready");
            System.err.flush();
            if (args.length > 0 && args[0].startsWith("exit=")) {
                System.exit(Integer.parseInt(args[0].substring(5)));
            }
            // sleep: parked: the child waits here to be killed or stopped
            Thread.sleep(60_000);
        }
    }

    @TempDir
    Path dir;

    @Test
    void aChildsOutputAndExitCodeAreCaptured() {
        try (ChildJvm child = ChildJvm.start(dir, "echo", Echo.class.getName(), List.of("exit=3", "b"))) {
            assertThat(child.awaitExit(Duration.ofSeconds(30))).isEqualTo(3);
            assertThat(child.stdout()).contains("args=exit=3,b");
            assertThat(child.stderr()).contains("echo ready");
        }
        assertThat(dir.resolve("echo.stdout")).exists();
    }

    @Test
    void terminateRunsTheChildsShutdownHooksAndKillDoesNot() {
        try (ChildJvm graceful = ChildJvm.start(dir, "graceful", Echo.class.getName(), List.of())) {
            graceful.awaitStderr("echo ready", Duration.ofSeconds(30));
            assertThat(graceful.terminate(Duration.ofSeconds(30))).isEqualTo(143);
            assertThat(graceful.stderr()).contains("shutdown hook ran");
        }
        try (ChildJvm crashed = ChildJvm.start(dir, "crashed", Echo.class.getName(), List.of())) {
            crashed.awaitStderr("echo ready", Duration.ofSeconds(30));
            assertThat(crashed.kill()).isEqualTo(137);
            assertThat(crashed.isAlive()).isFalse();
            assertThat(crashed.stderr()).doesNotContain("shutdown hook ran");
        }
    }

    @Test
    void theChildGetsTheEnvironmentGivenAndItsStdoutCanBeAwaited() {
        try (ChildJvm child = ChildJvm.start(
                dir,
                "env",
                Echo.class.getName(),
                List.of(),
                List.of("exit=0"),
                Map.of("CHILD_JVM_TEST_VALUE", "forty-two"))) {
            assertThat(child.awaitStdout("env=", Duration.ofSeconds(30))).contains("env=forty-two");
            assertThat(child.awaitExit(Duration.ofSeconds(30))).isZero();
        }
    }

    @Test
    void waitingForTextFailsAtOnceWithTheStderrWhenTheChildExitsFirst() {
        try (ChildJvm child = ChildJvm.start(dir, "early", Echo.class.getName(), List.of("exit=1"))) {
            assertThatThrownBy(() -> child.awaitStderr("never printed", Duration.ofSeconds(30)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("child exited with 1")
                    .hasMessageContaining("echo ready");
        }
    }
}
