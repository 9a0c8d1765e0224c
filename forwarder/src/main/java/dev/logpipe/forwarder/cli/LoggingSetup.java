package dev.logpipe.forwarder.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import dev.logpipe.forwarder.config.ForwarderConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Points Logback at {@code logging.file} (or standard error) with {@code logging.level}. */
final class LoggingSetup {
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level [%thread] %logger{0} - %msg%n";

    private LoggingSetup() {}

    static void apply(ForwarderConfig.Logging config) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(ctx);
        encoder.setPattern(PATTERN);
        encoder.start();
        OutputStreamAppender<ILoggingEvent> appender;
        if (config.file() != null) {
            FileAppender<ILoggingEvent> file = new FileAppender<>();
            file.setFile(config.file().toString());
            file.setAppend(true);
            appender = file;
        } else {
            ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
            console.setTarget("System.err");
            appender = console;
        }
        appender.setContext(ctx);
        appender.setName("main");
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(appender);
        root.setLevel(Level.toLevel(config.level(), Level.INFO));
        // The Kafka client warns on every reconnect attempt while a broker is down; the forwarder's own
        // Publisher already logs once when the sink starts failing and once when it recovers.
        // At debug or trace they stay visible, e.g. to see a TLS or SASL handshake fail.
        Level rootLevel = root.getLevel();
        if (rootLevel.isGreaterOrEqual(Level.INFO)) {
            ctx.getLogger("org.apache.kafka").setLevel(Level.ERROR);
        }
    }
}
