package dev.logpipe.role;

import dev.logpipe.config.ConfigException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The life of a role's process ({@code logpipe collector|indexer|query --config FILE}): load and validate the
 * configuration, optionally stop there ({@code --check-config}), start the role, then run until SIGTERM, when a
 * shutdown hook closes it within {@link #STOP_DEADLINE} ({@link StopDeadline}). Every role answers with the same exit
 * codes:
 *
 * <ul>
 *   <li>0: stopped by a signal (or the configuration is valid, with {@code --check-config});
 *   <li>2: the configuration is invalid (the message names the key);
 *   <li>3: the role cannot start (a corrupt state file, a port in use; the message names it). The JVM's
 *       {@code -XX:+ExitOnOutOfMemoryError}, which bin/logpipe always sets, exits with 3 too; its line on stdout
 *       ({@code Terminating due to java.lang.OutOfMemoryError}) tells them apart;
 *   <li>4: the role stopped on its own after an error ({@link Role#failure()});
 *   <li>5: the stop did not finish within {@link #STOP_DEADLINE} and the JVM was halted ({@link StopDeadline#HALTED}).
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

    /**
     * Longest graceful stop after SIGTERM before the JVM is halted: above every role's own bounded steps (the HTTP
     * port's 5 s, the collector's drain, the indexer's last commit).
     */
    public static final Duration STOP_DEADLINE = Duration.ofSeconds(60);

    private final String name;
    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Thread> shutdownHooks;
    private final Duration stopDeadline;

    /** @param name the command as the operator typed it, e.g. {@code logpipe indexer} */
    public RoleLifecycle(String name) {
        this(name, System.out, System.err, Runtime.getRuntime()::addShutdownHook, STOP_DEADLINE);
    }

    RoleLifecycle(
            String name, PrintStream out, PrintStream err, Consumer<Thread> shutdownHooks, Duration stopDeadline) {
        this.name = name;
        this.out = out;
        this.err = err;
        this.shutdownHooks = shutdownHooks;
        this.stopDeadline = stopDeadline;
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

    /** Closes the role on the shutdown hook's thread; halts the JVM if that takes longer than the deadline. */
    private void stop(Role role, CountDownLatch stopped) {
        try {
            StopDeadline.run(name, stopDeadline, err, () -> {
                try {
                    role.close();
                } catch (Exception e) {
                    err.println(name + ": error while stopping: " + e);
                }
            });
        } finally {
            stopped.countDown();
        }
    }
}
