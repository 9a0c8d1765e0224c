package dev.logpipe.role;

import java.io.PrintStream;
import java.time.Duration;

/**
 * Runs a graceful stop under a deadline: past it, the JVM is halted. A stop that hangs (a broker's shutdown waiting
 * on a thread an OutOfMemoryError killed) would otherwise keep a process that was told to stop alive and deaf to
 * further SIGTERMs (issue 24). Every logpipe process stops this way ({@link RoleLifecycle}, the standalone). Halting
 * is safe there: Kafka recovers its log at the next start, the indexer reads again what it had not committed, and
 * the collector answered nothing it had not stored.
 */
public final class StopDeadline {
    /** Exit status of a halted stop. */
    public static final int HALTED = 5;

    private StopDeadline() {}

    /** Runs {@code stop} on this thread; if it has not returned after {@code deadline}, halts the JVM. */
    public static void run(String name, Duration deadline, PrintStream err, Runnable stop) {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        Thread.sleep(deadline.toMillis());
                    } catch (InterruptedException e) {
                        return; // stopped in time
                    }
                    err.println(name + ": did not stop within " + deadline.toSeconds() + " s; halting");
                    err.flush();
                    Runtime.getRuntime().halt(HALTED);
                },
                name.replace(' ', '-') + "-stop-deadline");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            stop.run();
        } finally {
            watchdog.interrupt();
        }
    }
}
