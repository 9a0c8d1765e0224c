package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.PrometheusScrape;
import java.time.Duration;

/**
 * One run of {@code log-forwarder -config FILE} as a real child JVM (main class
 * {@code dev.logpipe.forwarder.cli.ForwarderCommand}) in the workspace directory. Its log goes to
 * standard error, which the test reads from a file.
 */
final class ForwarderProcess implements AutoCloseable {
    static final String MAIN_CLASS = "dev.logpipe.forwarder.cli.ForwarderCommand";
    /** A JVM that exits because of SIGTERM reports 128 + 15, after its shutdown hooks ran. */
    static final int EXIT_SIGTERM = 143;

    static final int EXIT_SIGKILL = 137;
    static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final ChildJvm jvm;
    private final Workspace workspace;
    private final int metricsPort;

    ForwarderProcess(ChildJvm jvm, Workspace workspace, int metricsPort) {
        this.jvm = jvm;
        this.workspace = workspace;
        this.metricsPort = metricsPort;
    }

    /** Waits for the start line, which names the resolved watermark path. */
    ForwarderProcess awaitStarted() {
        jvm.awaitStderr("log forwarder started state_path=" + workspace.watermarks(), START_TIMEOUT);
        return this;
    }

    /** Waits until the forwarder's log contains {@code text}; returns the whole log. */
    String awaitLog(String text) {
        return jvm.awaitStderr(text, START_TIMEOUT);
    }

    String log() {
        return jvm.stderr();
    }

    long pid() {
        return jvm.pid();
    }

    boolean isAlive() {
        return jvm.isAlive();
    }

    /** For a process expected to refuse to start: waits for its exit code. */
    int awaitExit() {
        return jvm.awaitExit(START_TIMEOUT);
    }

    /** Graceful stop (SIGTERM): the shutdown hook publishes, writes the watermarks and logs the stop. */
    void stop() {
        int code = jvm.terminate(START_TIMEOUT);
        assertThat(code).as("exit code after SIGTERM; log:\n%s", log()).isEqualTo(EXIT_SIGTERM);
        assertThat(log()).contains("log forwarder stopped state_path=" + workspace.watermarks());
    }

    /** Crash (SIGKILL, kill -9): no shutdown hook, no final watermark write. */
    void kill() {
        assertThat(jvm.kill()).isEqualTo(EXIT_SIGKILL);
    }

    /** Scrapes the child's /metrics (the workspace picked the port before starting it). */
    PrometheusScrape metrics() {
        if (metricsPort <= 0) {
            throw new IllegalStateException("this forwarder was started without metrics; use Workspace.withMetrics()");
        }
        return PrometheusScrape.of(metricsPort);
    }

    long counter(String name) {
        return metrics().counter(name);
    }

    @Override
    public void close() {
        jvm.close();
    }

    @Override
    public String toString() {
        return "forwarder " + jvm;
    }
}
