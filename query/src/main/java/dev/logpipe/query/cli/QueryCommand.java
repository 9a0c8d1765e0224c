package dev.logpipe.query.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.role.RoleCommand;
import dev.logpipe.role.RoleLifecycle;
import java.nio.file.Path;
import java.time.Clock;
import picocli.CommandLine.Command;

/**
 * {@code logpipe query --config FILE}: serves the query API until SIGTERM. Exit codes ({@link RoleLifecycle}): 2 bad
 * configuration, 3 a state file is unusable.
 */
@Command(
        name = "logpipe query",
        mixinStandardHelpOptions = true,
        description = "Tenant-scoped search over the indexer's shards: search, histogram, fields, context, tail.")
public final class QueryCommand extends RoleCommand<QueryConfig> {
    @Override
    protected QueryConfig load(Path file) throws ConfigException {
        return new QueryConfigLoader().load(file);
    }

    @Override
    protected RoleLifecycle.Role start(QueryConfig config) throws Exception {
        return QueryProcess.start(config, Clock.systemUTC())::close;
    }

    public static void main(String[] args) {
        exit(new QueryCommand(), args);
    }
}
