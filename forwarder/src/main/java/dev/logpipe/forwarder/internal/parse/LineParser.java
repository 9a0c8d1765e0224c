package dev.logpipe.forwarder.internal.parse;

/**
 * Every line is a record and commits on its own (docs/watermarks-and-restarts.md: strict per-line watermarks).
 * {@code line} takes primitives for the reason {@link Parser} gives.
 */
public final class LineParser implements Parser {
    @Override
    public void line(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            boolean truncated,
            long time,
            int flags,
            long nowNanos,
            Emitter out) {
        out.record(bytes, off, len, startOffset, endOffset, 1, truncated, time, flags);
    }

    @Override
    public boolean flushIfIdle(long nowNanos, Emitter out) {
        return false;
    }

    @Override
    public void flush(Emitter out) {}

    @Override
    public void discard() {}

    @Override
    public boolean hasPending() {
        return false;
    }
}
