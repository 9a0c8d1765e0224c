package dev.logpipe.indexer.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.role.RoleCommand;
import dev.logpipe.role.RoleLifecycle;
import java.nio.file.Path;
import java.time.Clock;
import picocli.CommandLine.Command;

/**
 * {@code logpipe indexer --config FILE}: runs the indexer until SIGTERM. Exit codes ({@link RoleLifecycle}): 2 bad
 * configuration, 3 a shard or state file is corrupt (the message names it), 4 the indexing loop stopped on an error.
 */
@Command(
        name = "logpipe indexer",
        mixinStandardHelpOptions = true,
        description = "Kafka to Lucene day shards per tenant: upsert, index-then-commit, refresh, retention.")
public final class IndexerCommand extends RoleCommand<IndexerConfig> {
    @Override
    protected IndexerConfig load(Path file) throws ConfigException {
        return new IndexerConfigLoader().load(file);
    }

    @Override
    protected RoleLifecycle.Role start(IndexerConfig config) throws Exception {
        return Indexer.start(config, Clock.systemUTC());
    }

    public static void main(String[] args) {
        exit(new IndexerCommand(), args);
    }
}
