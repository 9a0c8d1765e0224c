package dev.logpipe.role;

import dev.logpipe.config.ConfigException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of a role's process, {@code logpipe ROLE --config FILE [--check-config]}, run by
 * {@link RoleLifecycle} (its exit codes). A role's command is its picocli {@link Command} (the name the operator types,
 * e.g. {@code logpipe indexer}, and a description), how its configuration is read and how it starts:
 *
 * <pre>{@code
 * @Command(name = "logpipe indexer", mixinStandardHelpOptions = true, description = "...")
 * public final class IndexerCommand extends RoleCommand<IndexerConfig> { load(...), start(...) }
 * }</pre>
 *
 * @param <C> the role's validated configuration
 */
public abstract class RoleCommand<C> implements Callable<Integer> {
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the role's YAML configuration")
    Path config;

    @Option(names = "--check-config", description = "validate the configuration and exit")
    boolean checkOnly;

    /** Reads and validates the configuration file; a {@link ConfigException} names the key (exit 2). */
    protected abstract C load(Path file) throws ConfigException;

    /** Starts the role; see {@link RoleLifecycle.Starter} for which failures are the operator's (exit 3). */
    protected abstract RoleLifecycle.Role start(C config) throws Exception;

    @Override
    public final Integer call() throws Exception {
        return new RoleLifecycle(name()).run(config, checkOnly, this::load, this::start);
    }

    /** The command as the operator typed it: the {@link Command#name()} of the concrete class. */
    final String name() {
        Command command = getClass().getAnnotation(Command.class);
        if (command == null) {
            throw new IllegalStateException(getClass().getName() + " has no @Command naming the role");
        }
        return command.name();
    }

    /** Runs a role's command line and exits the JVM with its code. */
    protected static void exit(RoleCommand<?> command, String[] args) {
        System.exit(new CommandLine(command).execute(args));
    }
}
