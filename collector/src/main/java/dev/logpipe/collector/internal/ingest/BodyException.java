package dev.logpipe.collector.internal.ingest;

import java.io.IOException;

/**
 * Reading a request body stopped for a reason the client must be told: {@code status} is the HTTP answer (400
 * broken encoding, 408 too slow, 413 too large, 415 not UTF-8, 429 the tenant's bytes/s limit).
 */
public final class BodyException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    public BodyException(int status, String reason) {
        super(reason);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
