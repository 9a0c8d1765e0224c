package dev.logpipe.collector.internal.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * Splits a stream into lines on {@code '\n'} (a trailing {@code '\r'} is dropped) holding at most one line of
 * {@code maxLine} bytes: a longer line is skipped to its end and reported by {@link #tooLong} with its length, its
 * bytes never held. A line that lies inside one read chunk is handed out without copying. Line numbers count from
 * 1 and include blank lines; a final line without {@code '\n'} counts, an empty one after the last {@code '\n'}
 * does not (the same numbering as splitting the whole body).
 */
public final class LineReader implements RecordLines {
    public static final int CHUNK = 64 * 1024;

    private final InputStream in;
    private final int maxLine;
    private final LongPredicate mayGrowTo;
    private final byte[] chunk = new byte[CHUNK];
    private int pos;
    private int lim;
    private boolean eof;
    private byte[] line = new byte[0];
    private int lineLen;
    private long tooLongBy;

    private byte[] outArray;
    private int outOff;
    private int outLen;
    private int number;

    /**
     * @param mayGrowTo asked before the line buffer grows, with its new capacity; false stops reading with a
     *                  {@link BodyException} 503 (the memory cannot be had)
     */
    public LineReader(InputStream in, int maxLine, LongPredicate mayGrowTo) {
        this.in = in;
        this.maxLine = maxLine;
        this.mayGrowTo = mayGrowTo;
    }

    LineReader(InputStream in, int maxLine) {
        this(in, maxLine, capacity -> true);
    }

    /** Moves to the next line; false at the end of the stream. */
    @Override
    public boolean next() throws IOException {
        lineLen = 0;
        tooLongBy = 0;
        boolean started = false;
        while (true) {
            if (pos >= lim) {
                if (eof || !fill()) {
                    if (!started) {
                        return false;
                    }
                    finish(line, 0, lineLen);
                    return true;
                }
            }
            started = true;
            int nl = indexOfNewline(pos, lim);
            int end = nl < 0 ? lim : nl;
            if (nl >= 0 && lineLen == 0 && tooLongBy == 0) {
                finish(chunk, pos, end - pos); // the common case: the whole line is in the chunk
                pos = nl + 1;
                return true;
            }
            append(pos, end - pos);
            pos = nl < 0 ? lim : nl + 1;
            if (nl >= 0) {
                finish(line, 0, lineLen);
                return true;
            }
        }
    }

    private void finish(byte[] a, int off, int len) {
        number++;
        if (tooLongBy > 0) {
            outArray = a;
            outOff = off;
            outLen = 0;
            return;
        }
        if (len > 0 && a[off + len - 1] == '\r') {
            len--;
        }
        if (len > maxLine) {
            tooLongBy = len;
            len = 0;
        }
        outArray = a;
        outOff = off;
        outLen = len;
    }

    private void append(int from, int len) throws BodyException {
        if (tooLongBy > 0) {
            tooLongBy += len;
            return;
        }
        // One byte more than the limit is kept: a '\r' may follow that does not count.
        if ((long) lineLen + len > maxLine + 1L) {
            tooLongBy = (long) lineLen + len;
            lineLen = 0;
            return;
        }
        if (lineLen + len > line.length) {
            int capacity = Math.min(maxLine + 1, Math.max(lineLen + len, Math.max(256, line.length * 2)));
            if (!mayGrowTo.test(capacity)) {
                throw new BodyException(503, "the collector is at its in-flight bound (limits.in_flight_bytes)");
            }
            line = Arrays.copyOf(line, capacity);
        }
        System.arraycopy(chunk, from, line, lineLen, len);
        lineLen += len;
    }

    private boolean fill() throws IOException {
        int n = in.read(chunk, 0, CHUNK);
        if (n < 0) {
            eof = true;
            return false;
        }
        pos = 0;
        lim = n;
        return true;
    }

    private int indexOfNewline(int from, int to) {
        for (int i = from; i < to; i++) {
            if (chunk[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public byte[] array() {
        return outArray;
    }

    @Override
    public int offset() {
        return outOff;
    }

    @Override
    public int length() {
        return outLen;
    }

    /** The length in bytes of the current line when it was longer than {@code maxLine}, else 0. */
    @Override
    public long tooLong() {
        return tooLongBy;
    }

    @Override
    public int number() {
        return number;
    }

    /** Bytes held: the read chunk and the line buffer. */
    @Override
    public long heldBytes() {
        return CHUNK + line.length;
    }
}
