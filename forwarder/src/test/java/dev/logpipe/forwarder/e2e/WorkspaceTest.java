package dev.logpipe.forwarder.e2e;

import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the end-to-end tests: each test gets a fresh {@link Workspace} in a temporary directory (with a
 * metrics port unless {@link #metrics()} says otherwise), and every forwarder it started is killed after it.
 * A subclass's own {@code @BeforeEach} runs after this one, so it can adjust {@code ws.config()}.
 */
@Integration
abstract class WorkspaceTest {
    @TempDir
    Path tmp;

    Workspace ws;

    /** Whether forwarders started in the workspace expose /metrics. */
    protected boolean metrics() {
        return true;
    }

    @BeforeEach
    final void openWorkspace() {
        ws = new Workspace(tmp);
        if (metrics()) {
            ws.withMetrics();
        }
    }

    @AfterEach
    final void closeWorkspace() {
        ws.close();
    }
}
