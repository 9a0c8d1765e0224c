package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sun.misc.Signal;
import sun.misc.SignalHandler;

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
            new CountDownLatch(1).await(); // parked until the test stops or kills it
        }
    }

    /**
     * A parent started with SIGINT ignored, as a shell's {@code cmd &} starts it: it ignores SIGINT itself, starts
     * an {@link Echo} through {@link ChildJvm} and prints that child's pid.
     */
    public static final class IgnoringCtrlC {
        public static void main(String[] args) throws Exception {
            Signal.handle(new Signal("INT"), SignalHandler.SIG_IGN);
            ChildJvm child = ChildJvm.start(Path.of(args[0]), "grandchild", Echo.class.getName(), List.of());
            System.out.println("child pid=" + child.pid());
            System.out.flush();
            new CountDownLatch(1).await(); // parked until the test is done with its child and kills it
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
    void ctrlCStopsAChildGracefullyEvenWhenItsParentIgnoresCtrlC() throws Exception {
        try (ChildJvm parent = ChildJvm.start(dir, "parent", IgnoringCtrlC.class.getName(), List.of(dir.toString()))) {
            String line = parent.awaitStdout("child pid=", Duration.ofSeconds(30));
            long pid = Long.parseLong(
                    line.substring(line.indexOf("child pid=") + 10).strip());
            ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
            try {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> Files.exists(dir.resolve("grandchild.stderr"))
                                && Files.readString(dir.resolve("grandchild.stderr"))
                                        .contains("echo ready"));
                // the grandchild's SIGINT is at its default (env --default-signal=INT), so the JVM took Ctrl-C
                assertThat(new ProcessBuilder("kill", "-INT", Long.toString(pid))
                                .start()
                                .waitFor())
                        .isZero();
                await().atMost(Duration.ofSeconds(30)).until(() -> !child.isAlive());
                assertThat(Files.readString(dir.resolve("grandchild.stderr"))).contains("shutdown hook ran");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    @Test
    void interruptIsCtrlCAndRunsTheChildsShutdownHooks() {
        try (ChildJvm child = ChildJvm.start(dir, "interrupted", Echo.class.getName(), List.of())) {
            child.awaitStderr("echo ready", Duration.ofSeconds(30));
            assertThat(child.interrupt(Duration.ofSeconds(30))).isEqualTo(130);
            assertThat(child.stderr()).contains("shutdown hook ran");
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
