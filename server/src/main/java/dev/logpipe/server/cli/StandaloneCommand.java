package dev.logpipe.server.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.role.RoleLifecycle;
import dev.logpipe.role.StopDeadline;
import dev.logpipe.server.demo.Demo;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfig;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/**
 * {@code logpipe standalone}: the whole pipeline in one process until SIGTERM/Ctrl-C. Prints
 * {@code logpipe standalone ready url=http://HOST:PORT/} on standard output once it serves. Exit codes: 2 bad
 * configuration, 3 cannot start (data directory, key file, shard, port: the message names it; also the JVM's own code
 * for -XX:+ExitOnOutOfMemoryError), 5 a stop that did not finish within {@link #STOP_DEADLINE} (halted).
 */
@Command(
        name = "standalone",
        mixinStandardHelpOptions = true,
        description = "Embedded Kafka broker, collector, indexer, query service and web UI in one JVM, on one "
                + "HTTP port on 127.0.0.1. Zero config: the first start makes tenant 'default' and prints its key.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped cleanly",
            "2:invalid configuration or arguments",
            "3:cannot start (data directory, key file, shard or port; the message says which); also the JVM's code"
                    + " for -XX:+ExitOnOutOfMemoryError (its stdout says 'Terminating due to java.lang.OutOfMemoryError')",
            "5:the stop did not finish within 60 s; the JVM was halted"
        })
public final class StandaloneCommand implements Callable<Integer> {
    public static final String READY_PREFIX = "logpipe standalone ready url=";
    /** Longest graceful stop after SIGTERM before the JVM is halted (docs/standalone.md#stopping), as every role's. */
    static final Duration STOP_DEADLINE = RoleLifecycle.STOP_DEADLINE;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "YAML with listen, data_dir, broker, collector, "
                    + "indexer and query sections (docs/standalone.md); optional")
    Path config;

    @Option(names = "--data", paramLabel = "DIR", description = "data directory (default ./data)")
    Path data;

    @Option(names = "--port", paramLabel = "N", description = "the HTTP port for everything (default 7070)")
    Integer port;

    @Option(
            names = "--broker-port",
            paramLabel = "N",
            description = "the embedded broker's client port (default "
                    + "9092; 0 picks a free one); its controller port is always a free one")
    Integer brokerPort;

    @Option(
            names = "--demo",
            description = "also generate realistic, growing log files under DATA/demo-logs and "
                    + "ship them with a built-in forwarder")
    boolean demo;

    @Override
    public Integer call() throws Exception {
        StandaloneConfig c;
        try {
            c = new StandaloneConfigLoader()
                    .load(config, new StandaloneConfigLoader.Flags(data, port, brokerPort, demo));
        } catch (ConfigException e) {
            System.err.println("logpipe standalone: configuration error: " + e.getMessage());
            return 2;
        }
        Standalone s;
        try {
            s = Standalone.start(c, System.getenv(), Clock.systemUTC());
        } catch (ConfigException e) {
            System.err.println("logpipe standalone: configuration error: " + e.getMessage());
            return 2;
        } catch (IOException | IllegalStateException e) {
            System.err.println("logpipe standalone: cannot start: " + e.getMessage());
            return 3;
        }
        // SIGTERM and Ctrl-C (SIGINT) ask for the stop; this thread runs it and returns 0 ("stopped cleanly"),
        // where the JVM's default would exit with 143 or 130 once its shutdown hooks ran
        CountDownLatch stopAsked = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopping.compareAndSet(false, true)) {
                StopDeadline.run("logpipe standalone", STOP_DEADLINE, System.err, s::close);
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "standalone-shutdown")); // any other exit
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal.handle(new Signal(name), signal -> stopAsked.countDown());
            } catch (IllegalArgumentException e) { // no such signal here: the shutdown hook stops it
                System.err.println("logpipe standalone: cannot handle SIG" + name + ": " + e.getMessage());
            }
        }
        if (s.firstStart() != null) {
            System.out.println(s.firstStart().banner(s.baseUrl()));
        }
        if (c.demo()) {
            Demo d = Demo.start(
                    c.dataDir().resolve("demo-logs"),
                    c.dataDir().resolve("demo-state"),
                    s.baseUrl(),
                    s.keys(),
                    Clock.systemUTC());
            s.stopFirst(d);
        }
        System.out.println(READY_PREFIX + s.baseUrl() + "/");
        System.out.flush();
        stopAsked.await();
        stop.run();
        return 0;
    }
}
