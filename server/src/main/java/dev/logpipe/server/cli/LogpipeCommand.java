package dev.logpipe.server.cli;

import dev.logpipe.broker.BrokerMain;
import dev.logpipe.broker.tools.ConsumeCommand;
import dev.logpipe.broker.tools.TopicsCommand;
import dev.logpipe.collector.cli.CollectorCommand;
import dev.logpipe.indexer.cli.ArchivesCommand;
import dev.logpipe.indexer.cli.IndexerCommand;
import dev.logpipe.query.cli.QueryCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code logpipe}: every role behind one command. Each role's own command does the work ({@code broker},
 * {@code collector}, {@code indexer}, {@code query}, the Kafka tools); {@code standalone} and {@code keys} live here.
 */
@Command(
        name = "logpipe",
        mixinStandardHelpOptions = true,
        version = "logpipe 0.1.0",
        description = "A distributed logging pipeline: run one role, or all of them with `standalone`.")
public final class LogpipeCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return 2;
    }

    public static CommandLine commandLine() {
        return new CommandLine(new LogpipeCommand())
                .addSubcommand("standalone", new StandaloneCommand())
                .addSubcommand("keys", new KeysCommand())
                .addSubcommand("broker", new BrokerMain())
                .addSubcommand("collector", new CollectorCommand())
                .addSubcommand("indexer", new IndexerCommand())
                .addSubcommand("archives", new ArchivesCommand())
                .addSubcommand("query", new QueryCommand())
                .addSubcommand("topics", new TopicsCommand())
                .addSubcommand("consume", new ConsumeCommand());
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logpipe-logback.xml");
        }
        System.exit(commandLine().execute(args));
    }
}
