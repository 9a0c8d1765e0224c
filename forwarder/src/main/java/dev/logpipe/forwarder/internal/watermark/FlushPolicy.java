package dev.logpipe.forwarder.internal.watermark;

import java.time.Duration;
import java.time.Instant;

/**
 * When in-memory watermark updates go to disk: after {@code interval} since the last write, or after
 * {@code every} updates when that is > 0. An interval of zero writes after every update.
 */
public record FlushPolicy(Duration interval, long every) {
    public FlushPolicy {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval must be >= 0, was " + interval);
        }
        if (every < 0) {
            throw new IllegalArgumentException("every must be >= 0, was " + every);
        }
    }

    boolean due(long pendingUpdates, Instant lastFlush, Instant now) {
        if (pendingUpdates == 0) {
            return false;
        }
        if (interval.isZero()) {
            return true;
        }
        if (every > 0 && pendingUpdates >= every) {
            return true;
        }
        return !now.isBefore(lastFlush.plus(interval));
    }
}
