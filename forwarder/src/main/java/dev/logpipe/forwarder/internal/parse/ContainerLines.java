package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.internal.time.TimeParser;
import java.util.Arrays;

/**
 * Decodes a container runtime's log lines (CRI, Docker json-file) into the application's lines and
 * reassembles lines the runtime split (CRI's {@code P} tag, Docker's 16 KiB pieces) before any further
 * parsing, one buffer per stream (stdout and stderr interleave). A reassembled line starts at its first
 * piece and ends after its last; while a piece is held back, {@link #holdFloor} is its start, and no
 * watermark may pass it, so a crash re-reads the line whole. A line that is not in the runtime's format
 * goes on as plain text and is counted. Reassembled lines are bounded by {@code maxBytes} (the rest is cut
 * and the line marked truncated). One instance per file; not thread-safe.
 * {@code line} takes the runtime's line as bytes, offsets and primitives rather than a value record, for the reason
 * {@link Parser} gives (it is called the same way, once per line).
 */
public abstract class ContainerLines {
    /** What {@link #decode} found; valid until the next call. */
    protected byte[] content;

    protected int contentOff;
    protected int contentLen;
    protected int stream;
    protected long time;
    protected boolean partial;

    private final int maxBytes;
    private final Piece[] pieces = {new Piece(), new Piece()};
    private long malformed;

    private static final class Piece {
        byte[] buf = new byte[1024];
        int len;
        long start = -1;
        long time;
        boolean truncated;
    }

    protected ContainerLines(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Decodes one runtime line into the protected fields; false if it is not in the format. */
    protected abstract boolean decode(byte[] b, int off, int len);

    public final void line(
            byte[] b,
            int off,
            int len,
            long startOffset,
            long endOffset,
            boolean truncated,
            long nowNanos,
            Parser parser,
            Emitter out) {
        if (truncated || !decode(b, off, len)) {
            // Not a runtime line (or cut by the line limit, so its frame is lost): shipped as it is.
            malformed++;
            parser.line(b, off, len, startOffset, endOffset, truncated, TimeParser.NONE, 0, nowNanos, out);
            return;
        }
        Piece p = pieces[stream == Emitter.STDERR ? 1 : 0];
        if (partial) {
            if (p.start < 0) {
                p.start = startOffset;
                p.time = time;
            }
            append(p, content, contentOff, contentLen);
            return;
        }
        if (p.start < 0) {
            parser.line(content, contentOff, contentLen, startOffset, endOffset, false, time, stream, nowNanos, out);
            return;
        }
        append(p, content, contentOff, contentLen);
        long start = p.start;
        p.start = -1;
        parser.line(p.buf, 0, p.len, start, endOffset, p.truncated, p.time, stream, nowNanos, out);
        clear(p);
    }

    private void append(Piece p, byte[] b, int off, int n) {
        int room = maxBytes - p.len;
        if (n > room) {
            n = Math.max(room, 0);
            p.truncated = true;
        }
        if (p.len + n > p.buf.length) {
            p.buf = Arrays.copyOf(p.buf, Math.min(maxBytes, Math.max(p.buf.length * 2, p.len + n)));
        }
        System.arraycopy(b, off, p.buf, p.len, n);
        p.len += n;
    }

    private static void clear(Piece p) {
        p.start = -1;
        p.len = 0;
        p.truncated = false;
        if (p.buf.length > 64 * 1024) {
            p.buf = new byte[1024];
        }
    }

    /** Start offset of the earliest held-back piece, or Long.MAX_VALUE: a watermark must stay at or before it. */
    public final long holdFloor() {
        long a = pieces[0].start;
        long b = pieces[1].start;
        if (a < 0) {
            return b < 0 ? Long.MAX_VALUE : b;
        }
        return b < 0 ? a : Math.min(a, b);
    }

    public final boolean hasPending() {
        return pieces[0].start >= 0 || pieces[1].start >= 0;
    }

    /**
     * Emits held-back pieces as records marked {@link Emitter#PARTIAL}, earliest first: for a file that ended
     * (rotated away and read to its end) or was truncated, where the rest of the line will never come.
     */
    public final void flushPartials(long endOffset, long nowNanos, Parser parser, Emitter out) {
        while (hasPending()) {
            int i = pieces[1].start >= 0 && (pieces[0].start < 0 || pieces[1].start < pieces[0].start) ? 1 : 0;
            Piece p = pieces[i];
            long start = p.start;
            p.start = -1;
            parser.line(
                    p.buf,
                    0,
                    p.len,
                    start,
                    endOffset,
                    p.truncated,
                    p.time,
                    (i == 1 ? Emitter.STDERR : Emitter.STDOUT) | Emitter.PARTIAL,
                    nowNanos,
                    out);
            clear(p);
        }
    }

    /** Forgets held-back pieces (their lines will be read again). */
    public final void discard() {
        clear(pieces[0]);
        clear(pieces[1]);
    }

    /** Lines not in the runtime's format since the last call. */
    public final long takeMalformed() {
        long n = malformed;
        malformed = 0;
        return n;
    }
}
