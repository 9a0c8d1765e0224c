package dev.logpipe.collector.cli;

import dev.logpipe.collector.Collector;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.ConfigException;
import dev.logpipe.role.RoleCommand;
import dev.logpipe.role.RoleLifecycle;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Command;

/** {@code logpipe collector --config FILE}: runs the collector until SIGTERM (exit codes: {@link RoleLifecycle}). */
@Command(
        name = "logpipe collector",
        mixinStandardHelpOptions = true,
        description = "Authenticated, rate-limited, redacting log ingest that answers only after Kafka committed.")
public final class CollectorCommand extends RoleCommand<CollectorConfig> {
    @Override
    protected CollectorConfig load(Path file) throws ConfigException {
        return new CollectorConfigLoader().load(file);
    }

    @Override
    protected RoleLifecycle.Role start(CollectorConfig config) throws Exception {
        return Collector.start(config, Clock.systemUTC(), Duration.ofSeconds(60))::close;
    }

    public static void main(String[] args) {
        exit(new CollectorCommand(), args);
    }
}
