package dev.logpipe.forwarder.sink;

import dev.logpipe.forwarder.config.ForwarderConfig;
import java.io.IOException;

/** Builds the sink that {@code sink.type} names. */
public final class Sinks {
    private Sinks() {
    }

    public static Sink create(ForwarderConfig.Sink config) throws IOException {
        return switch (config.type()) {
            case FILE -> new FileSink(config.file().path(), config.file().format(), config.file().fsync());
            case STDOUT -> new StdoutSink(config.stdoutFormat());
        };
    }
}
