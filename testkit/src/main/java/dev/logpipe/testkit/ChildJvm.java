package dev.logpipe.testkit;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real child JVM running one main class with the test's own class path, in a working directory of the
 * test's choosing. Standard output and standard error go to files in that directory (no pipe can fill up
 * and block the child), so a test waits for log lines by reading the file. {@link #terminate} is a
 * graceful stop (SIGTERM: shutdown hooks run), {@link #interrupt} is Ctrl-C (SIGINT), {@link #kill} is {@code kill -9} (SIGKILL: nothing of the
 * child runs any more). {@link #close} kills a child that is still alive, so a failing test leaks nothing.
 */
public final class ChildJvm implements AutoCloseable {
    /** Flags that make a short-lived child start fast; its behaviour is the same as with the defaults. */
    public static final List<String> FAST_START_FLAGS =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m", "-Xss512k");

    /**
     * {@code env --default-signal=INT}: the child starts with SIGINT at its default disposition even when this JVM
     * was started with it ignored (a build run in the background by a shell: {@code cmd &} ignores SIGINT, and a
     * child inherits it), so a JVM child installs its Ctrl-C handling and {@link #interrupt} means what it says. Empty
     * when this machine's {@code env} lacks the option (coreutils before 8.31): the child then inherits as before.
     */
    private static final List<String> CTRL_C_RESTORED = ctrlCRestored();

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final String description;

    private ChildJvm(Process process, Path stdout, Path stderr, String description) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.description = description;
    }

    /**
     * Starts {@code java <flags> -cp <this JVM's class path> mainClass args...} in {@code workDir}.
     * Surefire may run tests from a manifest-only jar; passing it with {@code -cp} works all the same.
     *
     * @param outputName base name of the {@code .stdout}/{@code .stderr} files written in {@code workDir}
     */
    public static ChildJvm start(Path workDir, String outputName, String mainClass, List<String> args) {
        return start(workDir, outputName, mainClass, List.of(), args);
    }

    /** Like {@link #start(Path, String, String, List, List)}, the flags before the main class. */
    public static ChildJvm start(
            Path workDir, String outputName, List<String> jvmFlags, String mainClass, List<String> args) {
        return start(workDir, outputName, mainClass, jvmFlags, args);
    }

    /** As {@link #start(Path, String, String, List)}, with JVM flags after the fast-start ones (they win). */
    public static ChildJvm start(
            Path workDir, String outputName, String mainClass, List<String> jvmFlags, List<String> args) {
        return start(workDir, outputName, mainClass, jvmFlags, args, Map.of());
    }

    /** As {@link #start(Path, String, String, List, List)}, with these variables added to the child's environment. */
    public static ChildJvm start(
            Path workDir,
            String outputName,
            String mainClass,
            List<String> jvmFlags,
            List<String> args,
            Map<String, String> environment) {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("cannot tell which java binary runs this JVM"));
        List<String> command = new ArrayList<>(CTRL_C_RESTORED);
        command.add(java);
        command.addAll(FAST_START_FLAGS);
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(absoluteClassPath()); // the child runs in workDir: relative entries would not resolve there
        command.add(mainClass);
        command.addAll(args);
        Path out = workDir.resolve(outputName + ".stdout");
        Path err = workDir.resolve(outputName + ".stderr");
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().putAll(environment);
        try {
            return new ChildJvm(pb.start(), out, err, mainClass + " " + String.join(" ", args));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /**
     * The prefix when this machine's {@code env} takes the option and execs the command (the pid a test signals must
     * be the JVM's, not an {@code env} that forked it): the probe's shell prints its own pid, which must be the
     * probe's.
     */
    private static List<String> ctrlCRestored() {
        List<String> prefix = List.of("env", "--default-signal=INT");
        List<String> probeCommand = new ArrayList<>(prefix);
        probeCommand.addAll(List.of("sh", "-c", "echo $$"));
        Process probe = null;
        try {
            probe = new ProcessBuilder(probeCommand).redirectErrorStream(true).start();
            String printed = new String(probe.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            boolean execs = probe.waitFor(10, TimeUnit.SECONDS)
                    && probe.exitValue() == 0
                    && printed.equals(Long.toString(probe.pid()));
            return execs ? prefix : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } finally {
            if (probe != null) {
                probe.destroyForcibly();
            }
        }
    }

    private static String absoluteClassPath() {
        StringJoiner joined = new StringJoiner(File.pathSeparator);
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            joined.add(entry.isEmpty() ? entry : Path.of(entry).toAbsolutePath().toString());
        }
        return joined.toString();
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Everything the child wrote to standard error so far. */
    public String stderr() {
        return read(stderr);
    }

    public String stdout() {
        return read(stdout);
    }

    /** Waits until standard error contains {@code text}; fails (with the whole stderr) if the child exits first. */
    public String awaitStderr(String text, Duration timeout) {
        return awaitOutput("stderr", stderr, text, timeout);
    }

    /** Waits until standard output contains {@code text}; fails (with the whole stderr) if the child exits first. */
    public String awaitStdout(String text, Duration timeout) {
        return awaitOutput("stdout", stdout, text, timeout);
    }

    private String awaitOutput(String stream, Path file, String text, Duration timeout) {
        try {
            await(stream + " of " + description + " to contain \"" + text + "\"")
                    .atMost(timeout)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        if (read(file).contains(text)) {
                            return true;
                        }
                        if (!process.isAlive() && !read(file).contains(text)) {
                            throw new AssertionError("child exited with " + process.exitValue() + " before writing \""
                                    + text + "\" on " + stream + "; its stderr:\n" + stderr());
                        }
                        return false;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; its stderr:\n" + stderr(), e);
        }
        return read(file);
    }

    /** Waits for the child to exit on its own and returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "child did not exit within " + timeout + ": " + description + "; its stderr:\n" + stderr());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return process.exitValue();
    }

    /**
     * Graceful stop: SIGTERM ({@link ProcessHandle#destroy}), which runs the child's shutdown hooks; waits
     * for the exit and returns the exit code (a JVM stopped by SIGTERM exits with 143 = 128 + 15).
     */
    public int terminate(Duration timeout) {
        process.toHandle().destroy();
        return awaitExit(timeout);
    }

    /**
     * Ctrl-C: SIGINT ({@code kill -INT}), which a JVM handles as it does SIGTERM unless its program says otherwise;
     * waits for the exit and returns the exit code (a JVM stopped by SIGINT exits with 130 = 128 + 2).
     */
    public int interrupt(Duration timeout) {
        try {
            Process sent = new ProcessBuilder("kill", "-INT", Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!sent.waitFor(10, TimeUnit.SECONDS) || sent.exitValue() != 0) {
                throw new AssertionError("kill -INT " + process.pid() + " failed: " + description);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -INT " + process.pid(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return awaitExit(timeout);
    }

    /**
     * Crash: SIGKILL ({@link Process#destroyForcibly}, the same as {@code kill -9}). The child gets no chance
     * to flush or clean up; waits until the OS has reaped it and returns the exit code (137 = 128 + 9).
     */
    public int kill() {
        process.destroyForcibly();
        return awaitExit(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return "pid " + pid() + ": " + description;
    }

    private static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
