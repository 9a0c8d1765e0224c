package dev.logpipe.query.internal.tail;

import dev.logpipe.index.store.read.IdBytes;

/**
 * Where a tail's records go, in the shape of its protocol: Server-Sent Events for {@code /api/v1/tail}
 * ({@link EventWriter}), Loki's websocket messages for {@code /loki/api/v1/tail}. Used by the tail's thread only; every
 * method may block until the client took what it was given, and throws once the client is gone.
 */
public interface TailOut {
    /** One record to send: its id and its source as stored. */
    void record(IdBytes id, String source) throws Exception;

    /** {@code missed} matching records observed in [{@code fromMillis}, {@code toMillis}) could not be sent in time. */
    void skipped(long missed, long fromMillis, long toMillis) throws Exception;

    /** Nothing written since the last {@link #flush}. */
    boolean isEmpty();

    /** Sends what was written since the last flush. */
    void flush() throws Exception;

    /** Tells a silent client the tail is alive (and finds out whether the client still is). */
    void keepAlive() throws Exception;
}
