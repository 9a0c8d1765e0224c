package dev.logpipe.forwarder.internal.sink;

import java.io.IOException;
import java.time.Duration;

/** The destination asked us to come back later (HTTP 429/503); {@code retryAfter} is its hint, or null. */
public final class SinkBusyException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Duration retryAfter;

    public SinkBusyException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
