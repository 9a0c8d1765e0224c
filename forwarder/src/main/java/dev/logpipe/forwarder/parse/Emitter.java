package dev.logpipe.forwarder.parse;

/** Receives parsed records in file order; {@code bytes} is only valid during the call. */
public interface Emitter {
    /**
     * @param startOffset file offset of the record's first byte
     * @param endOffset   file offset just past the record's last line (its newline included): the watermark to commit
     * @param lines       physical lines the record covers
     * @param truncated   whether content was cut to the size limits
     */
    void record(byte[] bytes, int off, int len, long startOffset, long endOffset, int lines, boolean truncated);
}
