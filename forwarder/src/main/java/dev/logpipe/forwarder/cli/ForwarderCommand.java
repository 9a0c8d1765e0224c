package dev.logpipe.forwarder.cli;

import dev.logpipe.config.ConfigException;
import dev.logpipe.forwarder.Forwarder;
import dev.logpipe.forwarder.StateException;
import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.forwarder.config.ForwarderConfig;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code log-forwarder -config FILE [--reset-watermarks]}: runs until SIGINT/SIGTERM, then stops gracefully. */
@Command(
        name = "log-forwarder",
        mixinStandardHelpOptions = true,
        version = "log-forwarder 0.1.0",
        description = "Tails log files with crash-safe watermarks and publishes their records to a sink.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:--help, --version or --check-config succeeded",
            "1:unexpected failure (the sink, state directory or metrics address cannot be opened)",
            "2:invalid configuration or arguments",
            "3:unusable state (corrupt watermark file, or another process holds it)",
            "130/143:stopped by SIGINT/SIGTERM after a graceful shutdown (watermarks written)"
        })
public final class ForwarderCommand implements Callable<Integer> {
    public static final int EXIT_CONFIG = 2;
    public static final int EXIT_STATE = 3;

    @Option(
            names = {"-config", "--config"},
            paramLabel = "FILE",
            description = "YAML configuration file. Without it: defaults, state in .log-forwarder/watermarks.json.")
    private Path config;

    @Option(
            names = "--reset-watermarks",
            description = "If the watermark file is corrupt, archive it as {path}.corrupt.{timestamp} and start fresh.")
    private boolean resetWatermarks;

    @Option(names = "--check-config", description = "Validate the configuration, print a summary and exit.")
    private boolean checkConfig;

    public static void main(String[] args) {
        int code = new CommandLine(new ForwarderCommand()).execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() {
        ConfigLoader loader = new ConfigLoader(Path.of(""));
        ForwarderConfig cfg;
        try {
            cfg = config == null ? loader.defaults() : loader.load(config);
        } catch (ConfigException e) {
            System.err.println("log-forwarder: configuration error: " + e.getMessage());
            return EXIT_CONFIG;
        }
        if (checkConfig) {
            System.out.println("configuration ok: " + cfg.watch().sources().size() + " source(s), sink "
                    + cfg.sink().type().name().toLowerCase(Locale.ROOT) + ", state "
                    + cfg.watch().state().path());
            return 0;
        }
        LoggingSetup.apply(cfg.logging());
        Logger log = LoggerFactory.getLogger(ForwarderCommand.class);
        if (cfg.watch().sources().isEmpty()) {
            log.warn("no sources configured (watch.sources / watch.paths): nothing will be tailed");
        }
        Forwarder forwarder;
        try {
            forwarder = Forwarder.start(
                    cfg, resetWatermarks ? Forwarder.StartMode.RESET_IF_CORRUPT : Forwarder.StartMode.RESUME);
        } catch (StateException e) {
            log.error("cannot start: {}", e.getMessage());
            System.err.println("log-forwarder: " + e.getMessage());
            return EXIT_STATE;
        } catch (BindException e) {
            String msg = "cannot listen on metrics.listen " + cfg.metrics().listen() + ": " + e.getMessage();
            log.error("cannot start: {}", msg);
            System.err.println("log-forwarder: " + msg);
            return 1;
        } catch (IOException e) {
            log.error("cannot start: {}", e.toString());
            System.err.println("log-forwarder: cannot start: " + e);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(forwarder::close, "log-forwarder-shutdown"));
        try {
            forwarder.awaitStopped();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
