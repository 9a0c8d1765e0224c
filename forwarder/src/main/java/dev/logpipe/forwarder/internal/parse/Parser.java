package dev.logpipe.forwarder.internal.parse;

/**
 * Turns complete lines of one file into records. A parser may hold lines back (multiline); what it holds
 * is not committed, so the watermark stays before it. One instance per file; not thread-safe.
 * {@code line} takes the line as bytes, offsets and primitives rather than a value record: it runs once per line,
 * the forwarder's hottest call, and whether C2 would remove an object made per line here (it did for
 * {@code Batch.Line}, docs/benchmarks.md, "Value records on the per-line path") was not measured for this call, which
 * two implementations ({@code LineParser}, {@code MultilineParser}) serve; left as it is until measured.
 */
public interface Parser {
    /**
     * Takes one complete line; {@code nowNanos} (a monotonic time) stamps it for idle flushing; {@code time} and
     * {@code flags} are what a container runtime's line said (see {@link Emitter#record}).
     */
    void line(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            boolean truncated,
            long time,
            int flags,
            long nowNanos,
            Emitter out);

    /** Emits a held-back record whose last line arrived at least the idle flush interval ago; returns whether it did. */
    boolean flushIfIdle(long nowNanos, Emitter out);

    /** Emits whatever is held back (graceful shutdown, truncation of the file). */
    void flush(Emitter out);

    /** Drops a held-back record without emitting it (its lines will be read again). */
    void discard();

    /** Whether a record is held back. */
    boolean hasPending();
}
