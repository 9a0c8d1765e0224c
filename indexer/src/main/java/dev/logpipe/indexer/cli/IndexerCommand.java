package dev.logpipe.indexer.cli;

import dev.logpipe.config.RoleLifecycle;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code logpipe indexer --config FILE}: runs the indexer until SIGTERM. Exit codes: 2 bad configuration, 3 a shard
 * or state file is corrupt (the message names it), 4 the indexing loop stopped on an error.
 */
@Command(
        name = "logpipe indexer",
        mixinStandardHelpOptions = true,
        description = "Kafka to Lucene day shards per tenant: upsert, index-then-commit, refresh, retention.")
public final class IndexerCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "the indexer's YAML configuration")
    Path config;

    @Option(names = "--check-config", description = "validate the configuration and exit")
    boolean checkOnly;

    @Override
    public Integer call() throws Exception {
        return new RoleLifecycle("logpipe indexer")
                .run(config, checkOnly, new IndexerConfigLoader()::load, (IndexerConfig c) -> {
                    Indexer indexer = Indexer.start(c, Clock.systemUTC());
                    return new RoleLifecycle.Role() {
                        @Override
                        public String failure() {
                            Throwable f = indexer.loop().failure();
                            return indexer.loop().isAlive() || f == null ? null : f.toString();
                        }

                        @Override
                        public void close() throws Exception {
                            indexer.close();
                        }
                    };
                });
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new IndexerCommand()).execute(args));
    }
}
