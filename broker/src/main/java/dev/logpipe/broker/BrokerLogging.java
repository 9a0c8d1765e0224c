package dev.logpipe.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Kafka's logging to what an operator of a one-node broker needs. Kafka logs thousands of INFO lines while
 * it starts; its {@code kafka}, {@code org.apache.kafka} and {@code state.change.logger} loggers are set to WARN.
 * Does nothing when Logback is not the SLF4J backend.
 */
public final class BrokerLogging {
    /** The loggers Kafka's broker, controller and clients log through. */
    public static final List<String> KAFKA_LOGGERS = List.of("kafka", "org.apache.kafka", "state.change.logger");

    private BrokerLogging() {}

    /**
     * Sets each of {@link #KAFKA_LOGGERS} to WARN unless the Logback configuration gave it a level of its own, so a
     * {@code logback.xml} that asks for Kafka's INFO lines still gets them. Idempotent.
     */
    public static void quietKafka() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            for (String name : KAFKA_LOGGERS) {
                ch.qos.logback.classic.Logger logger = context.getLogger(name);
                if (logger.getLevel() == null) {
                    logger.setLevel(Level.WARN);
                }
            }
        }
    }

    /**
     * For a process that is only a broker ({@link BrokerMain}): everything goes to standard error, whose lines are
     * for people, because standard output carries the ready line other processes wait for. INFO for logpipe, WARN
     * for Kafka. Left alone when {@code -Dlogback.configurationFile} names a configuration.
     */
    static void forBrokerProcess() {
        toStderr(Level.INFO);
    }

    /** For the command-line tools ({@code logpipe topics}, {@code consume}): only warnings, on standard error. */
    public static void forTools() {
        toStderr(Level.WARN);
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            // The client's connection warnings repeat every backoff; the tool says in one line what failed.
            context.getLogger("org.apache.kafka").setLevel(Level.ERROR);
        }
    }

    private static void toStderr(Level rootLevel) {
        if (System.getProperty("logback.configurationFile") != null
                || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        context.reset();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(rootLevel);
        root.addAppender(stderr);
        quietKafka();
    }
}
