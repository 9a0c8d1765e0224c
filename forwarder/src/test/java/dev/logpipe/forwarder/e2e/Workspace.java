package dev.logpipe.forwarder.e2e;

import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.LogFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The directory one test runs the forwarder in (a JUnit {@code @TempDir}): {@code logs/} is the watched
 * source, {@code state/watermarks.json} the watermark file, {@code out/sink.ndjson} the file sink, and
 * {@code forwarder.yaml} the configuration, whose paths are relative to this directory (the child's
 * working directory) as an operator's would be. Every process started here is killed by {@link #close}.
 */
final class Workspace implements AutoCloseable {
    private final Path root;
    private final ForwarderConfigYaml config = new ForwarderConfigYaml();
    private final List<ForwarderProcess> started = new ArrayList<>();
    private final Delivered delivered;
    private boolean metrics;

    Workspace(Path tempDir) {
        try {
            this.root = tempDir.toRealPath();
            Files.createDirectories(logs());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        config.set("watch.poll", "50ms")
                .set("watch.scan_interval", "50ms")
                .set("watch.state.path", "state/watermarks.json")
                .set("watch.state.flush_interval", "0")
                .source(Path.of("logs"), "*.log")
                .set("sink.type", "file")
                .set("sink.file.path", "out/sink.ndjson")
                .set("sink.file.format", "ndjson");
        this.delivered = new Delivered(sinkFile());
    }

    Path root() {
        return root;
    }

    Path logs() {
        return root.resolve("logs");
    }

    /** A file in the watched directory. */
    Path log(String name) {
        return logs().resolve(name);
    }

    /** Opens a log file in the watched directory for appending. */
    LogFile logFile(String name) {
        return LogFile.append(log(name));
    }

    Path watermarks() {
        return root.resolve("state").resolve("watermarks.json");
    }

    Path sinkFile() {
        return root.resolve("out").resolve("sink.ndjson");
    }

    Path configFile() {
        return root.resolve("forwarder.yaml");
    }

    /** The configuration the next {@link #start} writes; tests change keys on it. */
    ForwarderConfigYaml config() {
        return config;
    }

    /** Each later start listens for /metrics on a port picked just before it. */
    Workspace withMetrics() {
        metrics = true;
        return this;
    }

    Delivered delivered() {
        return delivered;
    }

    /** Writes the configuration and starts {@code log-forwarder -config forwarder.yaml [extraArgs]}. */
    ForwarderProcess start(String... extraArgs) {
        int port = -1;
        if (metrics) {
            port = FreePort.pick();
            config.set("metrics.listen", "127.0.0.1:" + port);
        }
        config.writeTo(configFile());
        List<String> args =
                new ArrayList<>(List.of("-config", configFile().getFileName().toString()));
        args.addAll(List.of(extraArgs));
        ChildJvm jvm = ChildJvm.start(root, "forwarder-" + (started.size() + 1), ForwarderProcess.MAIN_CLASS, args);
        ForwarderProcess p = new ForwarderProcess(jvm, this, port);
        started.add(p);
        return p;
    }

    /** Starts the forwarder and waits for its start line. */
    ForwarderProcess startAndAwait(String... extraArgs) {
        return start(extraArgs).awaitStarted();
    }

    /** Every forwarder started here, in order. */
    List<ForwarderProcess> processes() {
        return List.copyOf(started);
    }

    @Override
    public void close() {
        for (ForwarderProcess p : started) {
            p.close();
        }
    }
}
