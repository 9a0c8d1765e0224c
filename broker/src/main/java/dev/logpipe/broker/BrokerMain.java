package dev.logpipe.broker;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code BrokerMain --port N --controller-port N --data DIR}: the embedded broker as a process of its own. Once it
 * serves clients it prints exactly one line on standard output, {@code broker ready bootstrap=127.0.0.1:PORT}, and
 * nothing else there (logs go to standard error). SIGTERM and SIGINT stop it cleanly; SIGKILL is a crash, which is
 * what {@link BrokerProcess} uses it for.
 */
@Command(
        name = "logpipe broker",
        mixinStandardHelpOptions = true,
        version = "logpipe broker 0.1.0",
        description = "Runs a single-node KRaft Kafka broker on 127.0.0.1 until SIGINT/SIGTERM.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:--help or --version",
            "1:the broker failed to start, or stopped on its own",
            "2:invalid arguments",
            "4:a port is already in use (the message names it and the flag to change)",
            "130/143:stopped by SIGINT/SIGTERM after a clean shutdown"
        })
public final class BrokerMain implements Callable<Integer> {
    /** The line on standard output that says the broker serves clients; the bootstrap address follows it. */
    public static final String READY_PREFIX = "broker ready bootstrap=";

    @Option(
            names = "--port",
            paramLabel = "N",
            defaultValue = "9092",
            description = "Client (PLAINTEXT) port on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(
            names = "--controller-port",
            paramLabel = "N",
            defaultValue = "0",
            description = "KRaft controller port on 127.0.0.1; clients never use it. Default: a free one.")
    private int controllerPort;

    @Option(
            names = "--data",
            paramLabel = "DIR",
            defaultValue = "data/broker",
            description = "Data directory, formatted on first use. Default: ${DEFAULT-VALUE}.")
    private Path data;

    @Option(
            names = "--parent-pid",
            paramLabel = "PID",
            hidden = true,
            description = "Stop when this process exits (BrokerProcess: a crashed test JVM leaves no broker behind).")
    private Long parentPid;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new BrokerMain()).execute(args);
    }

    @Override
    public Integer call() {
        BrokerLogging.forBrokerProcess();
        Logger log = LoggerFactory.getLogger(BrokerMain.class);
        String busy = busyPort(port, "--port");
        if (busy == null) {
            busy = busyPort(controllerPort, "--controller-port");
        }
        if (busy != null) {
            System.err.println("logpipe broker: " + busy);
            return 4;
        }
        BrokerConfig config;
        try {
            config = BrokerConfig.of(data.toAbsolutePath(), port, controllerPort);
        } catch (IllegalArgumentException e) {
            System.err.println("logpipe broker: " + e.getMessage());
            return 2;
        }
        EmbeddedBroker broker;
        try {
            broker = EmbeddedBroker.start(config);
        } catch (IOException | RuntimeException e) {
            log.error("cannot start the broker: {}", e.getMessage(), e);
            System.err.println("logpipe broker: " + e.getMessage());
            return 1;
        }
        try (broker) {
            if (parentPid != null) {
                stopWithParent(parentPid, log);
            }
            System.out.println(READY_PREFIX + broker.bootstrapServers());
            System.out.flush();
            // Returns after SIGTERM/SIGINT (the broker's shutdown hook closed it; the JVM then exits 143/130)
            // or when Kafka stopped on its own, which is a failure.
            broker.awaitStopped();
            if (!broker.isClosed()) {
                log.error("the broker stopped on its own");
                return 1;
            }
            return 0;
        }
    }

    /**
     * Null when {@code port} (0: any) can be bound on 127.0.0.1 now; otherwise the one line to print. Checked before
     * Kafka starts, so a taken port is one clear line instead of Kafka's stack traces.
     */
    static String busyPort(int port, String flag) {
        if (port == 0) {
            return null;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", port));
            return null;
        } catch (IOException e) {
            return "port " + port + " on 127.0.0.1 is already in use (another broker?); choose another with " + flag
                    + " N";
        }
    }

    private static void stopWithParent(long pid, Logger log) {
        var parent = ProcessHandle.of(pid);
        if (parent.isEmpty()) {
            log.error("parent process {} is gone; stopping", pid);
            System.exit(1);
        }
        parent.get().onExit().thenRun(() -> {
            log.warn("parent process {} exited; stopping", pid);
            System.exit(1);
        });
    }
}
