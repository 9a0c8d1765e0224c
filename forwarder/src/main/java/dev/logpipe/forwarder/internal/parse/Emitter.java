package dev.logpipe.forwarder.internal.parse;

/**
 * Receives parsed records in file order; {@code bytes} is only valid during the call. {@code record} takes the
 * record as bytes, offsets and primitives rather than a value record: it runs once per record on the hot path, called
 * from every {@link Parser} (whose own {@code line} takes primitives, see there); its receiver makes the record a
 * {@code Batch.Line} (docs/benchmarks.md, "Value records on the per-line path").
 */
public interface Emitter {
    /** {@code flags}: the line came from a container's stdout. */
    int STDOUT = 1;
    /** {@code flags}: the line came from a container's stderr. */
    int STDERR = 2;
    /** {@code flags}: a container line whose end was never written (cut by a rotation or a truncation). */
    int PARTIAL = 4;

    /**
     * @param startOffset file offset of the record's first byte
     * @param endOffset   file offset just past the record's last line (its newline included): the watermark to
     *                    commit, unless a split container line before it is still held back (the caller limits it)
     * @param lines       physical lines the record covers
     * @param truncated   whether content was cut to the size limits
     * @param time        the container runtime's timestamp of the record's first line (epoch nanoseconds), or
     *                    {@link dev.logpipe.forwarder.internal.time.TimeParser#NONE}
     * @param flags       {@link #STDOUT}, {@link #STDERR}, {@link #PARTIAL}, or 0
     */
    void record(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            int lines,
            boolean truncated,
            long time,
            int flags);
}
