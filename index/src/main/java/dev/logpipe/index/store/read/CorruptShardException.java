package dev.logpipe.index.store.read;

import java.io.IOException;

/**
 * A shard (or the archive a day is read from) whose stored bytes failed their checks: a checksum, a length, a magic
 * number. The message names what is corrupt; a query service reports the day as left out for it ({@code corrupt}),
 * never as silently empty.
 */
public class CorruptShardException extends IOException {
    public CorruptShardException(String message) {
        super(message);
    }

    public CorruptShardException(String message, Throwable cause) {
        super(message, cause);
    }
}
