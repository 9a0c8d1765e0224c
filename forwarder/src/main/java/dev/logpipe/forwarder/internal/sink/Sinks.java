package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.config.ForwarderConfig;
import java.io.IOException;
import java.util.function.LongConsumer;

/** Builds the sink that {@code sink.type} names. */
public final class Sinks {
    private Sinks() {}

    /** @param deadLettered counts records a sink set aside as permanently rejected */
    public static Sink create(ForwarderConfig.Sink config, LongConsumer deadLettered) throws IOException {
        return switch (config.type()) {
            case FILE ->
                new FileSink(
                        config.file().path(),
                        config.file().format(),
                        config.file().fsync());
            case STDOUT -> new StdoutSink(config.stdoutFormat());
            case HTTP -> new HttpSink(config.http(), deadLettered);
            case KAFKA -> new KafkaSink(config.kafka());
        };
    }
}
