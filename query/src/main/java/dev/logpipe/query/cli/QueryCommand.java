package dev.logpipe.query.cli;

import dev.logpipe.config.RoleLifecycle;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code logpipe query --config FILE}: serves the query API until SIGTERM. Exit codes: 2 bad configuration, 3 a state file is unusable. */
@Command(
        name = "logpipe query",
        mixinStandardHelpOptions = true,
        description = "Tenant-scoped search over the indexer's shards: search, histogram, fields, context, tail.")
public final class QueryCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "the query service's YAML configuration")
    Path config;

    @Option(names = "--check-config", description = "validate the configuration and exit")
    boolean checkOnly;

    @Override
    public Integer call() throws Exception {
        return new RoleLifecycle("logpipe query")
                .run(config, checkOnly, new QueryConfigLoader()::load, (QueryConfig c) -> {
                    QueryProcess process = QueryProcess.start(c, Clock.systemUTC());
                    return process::close;
                });
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new QueryCommand()).execute(args));
    }
}
