package dev.logpipe.indexer.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        IndexerConfig c;
        try {
            c = new IndexerConfigLoader().load(config);
        } catch (ConfigException e) {
            System.err.println("logpipe indexer: configuration error: " + e.getMessage());
            return 2;
        }
        if (checkOnly) {
            System.out.println("configuration ok: " + config);
            return 0;
        }
        Indexer indexer;
        try {
            indexer = Indexer.start(c, Clock.systemUTC());
        } catch (IOException e) {
            System.err.println("logpipe indexer: cannot start: " + e.getMessage());
            return 3;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                indexer.close();
                            } catch (Exception e) {
                                System.err.println("logpipe indexer: error while stopping: " + e);
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "indexer-shutdown"));
        while (!stopped.await(1, TimeUnit.SECONDS)) {
            if (!indexer.loop().isAlive() && indexer.loop().failure() != null) {
                System.err.println("logpipe indexer: stopped: " + indexer.loop().failure());
                return 4;
            }
        }
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new IndexerCommand()).execute(args));
    }
}
