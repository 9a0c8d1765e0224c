package dev.logpipe.collector.cli;

import dev.logpipe.collector.Collector;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.RoleLifecycle;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
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
        return new RoleLifecycle("logpipe collector")
                .run(config, checkOnly, new CollectorConfigLoader()::load, (CollectorConfig c) -> {
                    Collector collector = Collector.start(c, Clock.systemUTC(), Duration.ofSeconds(60));
                    return collector::close;
                });
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new CollectorCommand()).execute(args));
    }
}
