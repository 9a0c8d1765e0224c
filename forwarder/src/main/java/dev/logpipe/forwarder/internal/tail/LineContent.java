package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.ForwarderConfig.LineFormat;
import dev.logpipe.forwarder.internal.parse.JsonLineReader;
import dev.logpipe.forwarder.internal.parse.LogfmtLineReader;
import dev.logpipe.forwarder.internal.parse.StructuredReader;
import dev.logpipe.forwarder.internal.time.TimeParser;

/**
 * How the records of a source are read as structured lines: JSON or logfmt with the source's key mapping. Each
 * thread that reads them makes its own reader ({@link #newReader}); one instance per source's parser, so a thread
 * finds its reader by identity.
 */
record LineContent(LineFormat format, KeyMapping keys) {
    LineContent {
        if (format != LineFormat.JSON && format != LineFormat.LOGFMT) {
            throw new IllegalArgumentException("not a structured line format: " + format);
        }
    }

    /** @param timeKey {@code transform.event_time.field}, or null for the mapping's time keys */
    StructuredReader newReader(String timeKey, TimeParser time) {
        return format == LineFormat.JSON
                ? new JsonLineReader(keys, timeKey, time)
                : new LogfmtLineReader(keys, timeKey, time);
    }
}
