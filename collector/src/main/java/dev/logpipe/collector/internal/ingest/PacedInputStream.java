package dev.logpipe.collector.internal.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A request body that must keep arriving: after a grace period of waiting for it, it must have averaged at least
 * {@code minBytesPerSecond} over the time spent waiting in {@code read} (time the collector spends processing or
 * publishing is not the client's), and it must be complete within {@code deadline} of wall-clock time (HTTP 408
 * otherwise). Checked each time a read returns; a client that sends nothing at all is cut by the idle timeout.
 */
final class PacedInputStream extends BlockInputStream {
    private final LongSupplier nanos;
    private final long minBytesPerSecond;
    private final long graceNanos;
    private final long deadlineNanos;
    private final long start;
    private long count;
    /** Time spent waiting inside {@code read}: what the client is responsible for (not our processing). */
    private long readNanos;

    PacedInputStream(InputStream in, LongSupplier nanos, long minBytesPerSecond, Duration grace, Duration deadline) {
        super(in);
        this.nanos = nanos;
        this.minBytesPerSecond = minBytesPerSecond;
        this.graceNanos = grace.toNanos();
        this.deadlineNanos = deadline.toNanos();
        this.start = nanos.getAsLong();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        check();
        long t0 = nanos.getAsLong();
        int n = super.read(b, off, len);
        readNanos += nanos.getAsLong() - t0;
        if (n > 0) {
            count += n;
            check();
        }
        return n;
    }

    private void check() throws BodyException {
        long elapsed = nanos.getAsLong() - start;
        if (elapsed > deadlineNanos) {
            throw new BodyException(
                    408,
                    "the body was not complete within limits.body_timeout (" + Duration.ofNanos(deadlineNanos) + "); "
                            + count + " bytes arrived");
        }
        if (minBytesPerSecond > 0 && readNanos > graceNanos) {
            double expected = minBytesPerSecond * ((readNanos - graceNanos) / 1e9);
            if (count < expected) {
                throw new BodyException(
                        408,
                        "the body arrives slower than limits.min_body_rate (" + minBytesPerSecond
                                + " bytes/s): " + count + " bytes in "
                                + Duration.ofNanos(readNanos).toMillis() + " ms of "
                                + "waiting for it");
            }
        }
    }
}
