package dev.logpipe.collector.cli;

import dev.logpipe.collector.Collector;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.ConfigException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code logpipe collector --config FILE}: runs the collector until SIGTERM. Exit 2: bad configuration. */
@Command(
        name = "logpipe collector",
        mixinStandardHelpOptions = true,
        description = "Authenticated, rate-limited, redacting log ingest that answers only after Kafka committed.")
public final class CollectorCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "the collector's YAML configuration")
    Path config;

    @Option(names = "--check-config", description = "validate the configuration and exit")
    boolean checkOnly;

    @Override
    public Integer call() throws Exception {
        CollectorConfig c;
        try {
            c = new CollectorConfigLoader().load(config);
        } catch (ConfigException e) {
            System.err.println("logpipe collector: configuration error: " + e.getMessage());
            return 2;
        }
        if (checkOnly) {
            System.out.println("configuration ok: " + config);
            return 0;
        }
        Collector collector;
        try {
            collector = Collector.start(c, Clock.systemUTC(), Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
            System.err.println("logpipe collector: cannot start: " + e.getMessage());
            return 3;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                collector.close();
                            } catch (Exception e) {
                                System.err.println("logpipe collector: error while stopping: " + e);
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "collector-shutdown"));
        stopped.await();
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new CollectorCommand()).execute(args));
    }
}
