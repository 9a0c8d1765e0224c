package dev.logpipe.forwarder.internal.tail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a file's bytes, fed in chunks of any size, into complete lines. A line is emitted only once its
 * newline has been read, so a partial last line stays here (bounded by {@code maxLineBytes}) and the
 * offset after the last emitted line is always a line boundary. A line longer than {@code maxLineBytes}
 * is cut to that length and marked truncated; the rest of it is skipped, so memory stays bounded.
 * Line content excludes the newline and a preceding carriage return. Not thread-safe.
 */
public final class LineSplitter {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;

    /** Receives each complete line; {@code bytes} is only valid during the call. */
    public interface LineConsumer {
        void line(byte[] bytes, int off, int len, long startOffset, long endOffset, boolean truncated);
    }

    private final int maxLineBytes;
    private byte[] carry = new byte[256];
    private int carryLen;
    private boolean overflow;
    /** File offset of the first byte not yet handed to a consumer as part of a complete line. */
    private long lineStart;
    /** File offset just past the last byte fed. */
    private long fed;

    public LineSplitter(int maxLineBytes, long startOffset) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes must be >= 1, was " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
        reset(startOffset);
    }

    /** Forgets any partial line and continues at {@code offset} (after a truncation or a seek). */
    public void reset(long offset) {
        carryLen = 0;
        overflow = false;
        lineStart = offset;
        fed = offset;
        if (carry.length > 64 * 1024) {
            carry = new byte[256];
        }
    }

    /** Offset just past the last complete line: where a restart must resume. */
    public long committedBoundary() {
        return lineStart;
    }

    /** Bytes read but not yet part of a complete line. */
    public long pendingBytes() {
        return fed - lineStart;
    }

    public void feed(byte[] buf, int off, int len, LineConsumer out) {
        int end = off + len;
        int pos = off;
        while (pos < end) {
            int nl = indexOf(buf, pos, end);
            if (nl < 0) {
                keep(buf, pos, end - pos);
                fed += end - pos;
                return;
            }
            int segment = nl - pos;
            long lineEnd = fed + segment + 1;
            if (carryLen == 0 && !overflow) {
                emit(buf, pos, segment, lineEnd, out);
            } else {
                keep(buf, pos, segment);
                emit(carry, 0, carryLen, lineEnd, out);
                carryLen = 0;
            }
            fed = lineEnd;
            pos = nl + 1;
        }
    }

    private void emit(byte[] b, int off, int len, long lineEnd, LineConsumer out) {
        boolean truncated = overflow;
        if (len > maxLineBytes) {
            len = maxLineBytes;
            truncated = true;
        } else if (!truncated && len > 0 && b[off + len - 1] == '\r') {
            len--;
        }
        out.line(b, off, len, lineStart, lineEnd, truncated);
        overflow = false;
        lineStart = lineEnd;
    }

    /** Appends to the partial line, keeping at most maxLineBytes of it. */
    private void keep(byte[] b, int off, int len) {
        int room = maxLineBytes - carryLen;
        if (len > room) {
            overflow = true;
            len = Math.max(room, 0);
        }
        if (len == 0) {
            return;
        }
        if (carryLen + len > carry.length) {
            carry = Arrays.copyOf(carry, Math.min(maxLineBytes, Math.max(carry.length * 2, carryLen + len)));
        }
        System.arraycopy(b, off, carry, carryLen, len);
        carryLen += len;
    }

    /** Finds the next newline eight bytes at a time (SWAR: a zero byte of {@code word ^ 0x0A0A...} marks it). */
    static int indexOf(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONGS.get(b, i) ^ NEWLINES;
            long found = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
