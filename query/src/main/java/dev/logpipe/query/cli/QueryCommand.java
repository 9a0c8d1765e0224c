package dev.logpipe.query.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
        QueryConfig c;
        try {
            c = new QueryConfigLoader().load(config);
        } catch (ConfigException e) {
            System.err.println("logpipe query: configuration error: " + e.getMessage());
            return 2;
        }
        if (checkOnly) {
            System.out.println("configuration ok: " + config);
            return 0;
        }
        QueryProcess process;
        try {
            process = QueryProcess.start(c, Clock.systemUTC());
        } catch (IOException e) {
            System.err.println("logpipe query: cannot start: " + e.getMessage());
            return 3;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                process.close();
                            } catch (Exception e) {
                                System.err.println("logpipe query: error while stopping: " + e);
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "query-shutdown"));
        stopped.await();
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new QueryCommand()).execute(args));
    }
}
