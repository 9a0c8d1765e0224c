package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.config.Format;
import java.io.Closeable;
import java.io.IOException;

/**
 * Where records go. {@link #publish} returns only once every record of the batch is durable downstream
 * (file sink: written to the OS and, if configured, fsynced); if it throws, nothing of the batch counts
 * as delivered and the caller retries the same batch, so a sink must tolerate re-delivery.
 */
public interface Sink extends Closeable {
    void publish(Batch batch) throws IOException;

    /**
     * Starts publishing {@code batch} and returns at once where the sink can overlap batches; the batch
     * stays untouched until the returned delivery completes. {@link Delivery#await} returns once the batch
     * is durable or throws as {@link #publish} would (a retry then calls {@link #publish} with the same
     * batch). The default publishes synchronously.
     */
    default Delivery send(Batch batch) throws IOException {
        publish(batch);
        return Delivery.DONE;
    }

    /** A publish in progress. */
    interface Delivery {
        Delivery DONE = () -> {};

        void await() throws IOException;
    }

    /** How the sink wants records encoded in {@link Batch#wire()}. */
    default Format format() {
        return Format.NDJSON;
    }

    /** A short description for log lines, e.g. {@code file /var/log/out.ndjson}. */
    String describe();
}
