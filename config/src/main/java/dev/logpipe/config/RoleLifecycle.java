package dev.logpipe.config;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The life of a role's process ({@code logpipe collector|indexer|query --config FILE}): load and validate the
 * configuration, optionally stop there ({@code --check-config}), start the role, then run until SIGTERM, when a
 * shutdown hook closes it. Every role answers with the same exit codes:
 *
 * <ul>
 *   <li>0: stopped by a signal (or the configuration is valid, with {@code --check-config});
 *   <li>2: the configuration is invalid (the message names the key);
 *   <li>3: the role cannot start (a corrupt state file, a port in use; the message names it);
 *   <li>4: the role stopped on its own after an error ({@link Role#failure()}).
 * </ul>
 */
public final class RoleLifecycle {
    /** Reads the configuration file. */
    @FunctionalInterface
    public interface Loader<C> {
        C load(Path file) throws ConfigException;
    }

    /**
     * Starts the role from its configuration. An {@link IOException} or {@link IllegalStateException} is a start
     * failure the operator can act on (exit 3, its message printed); anything else is a defect and propagates.
     */
    @FunctionalInterface
    public interface Starter<C> {
        Role start(C config) throws Exception;
    }

    /** A running role. */
    public interface Role extends AutoCloseable {
        /** Non-null once the role has stopped by itself after an error: the process then exits 4. */
        default String failure() {
            return null;
        }
    }

    private final String name;
    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Thread> shutdownHooks;

    /** @param name the command as the operator typed it, e.g. {@code logpipe indexer} */
    public RoleLifecycle(String name) {
        this(name, System.out, System.err, Runtime.getRuntime()::addShutdownHook);
    }

    RoleLifecycle(String name, PrintStream out, PrintStream err, Consumer<Thread> shutdownHooks) {
        this.name = name;
        this.out = out;
        this.err = err;
        this.shutdownHooks = shutdownHooks;
    }

    /** Runs the role until SIGTERM; returns the exit code. */
    public <C> int run(Path configFile, boolean checkOnly, Loader<C> loader, Starter<C> starter) throws Exception {
        C config;
        try {
            config = loader.load(configFile);
        } catch (ConfigException e) {
            err.println(name + ": configuration error: " + e.getMessage());
            return 2;
        }
        if (checkOnly) {
            out.println("configuration ok: " + configFile);
            return 0;
        }
        Role role;
        try {
            role = starter.start(config);
        } catch (IOException | IllegalStateException e) {
            err.println(name + ": cannot start: " + e.getMessage());
            return 3;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        shutdownHooks.accept(new Thread(() -> stop(role, stopped), name.replace(' ', '-') + "-shutdown"));
        while (!stopped.await(1, TimeUnit.SECONDS)) {
            String failure = role.failure();
            if (failure != null) {
                err.println(name + ": stopped: " + failure);
                return 4;
            }
        }
        return 0;
    }

    private void stop(Role role, CountDownLatch stopped) {
        try {
            role.close();
        } catch (Exception e) {
            err.println(name + ": error while stopping: " + e);
        } finally {
            stopped.countDown();
        }
    }
}
