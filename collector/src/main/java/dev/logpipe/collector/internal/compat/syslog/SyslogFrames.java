package dev.logpipe.collector.internal.compat.syslog;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a syslog TCP stream into messages (RFC 6587): octet-counted ({@code LEN SP MSG}) when a frame starts with a
 * digit, else newline-terminated. A connection holds at most one message of {@code maxBytes} (plus the read
 * buffer); a longer one is skipped to its end and reported with its length, its bytes never held. Not thread-safe.
 */
final class SyslogFrames {
    private final InputStream in;
    private final int maxBytes;
    private final byte[] buf = new byte[16 * 1024];
    private int pos;
    private int lim;
    private byte[] frame = new byte[256];
    private int length;
    private long tooLong;

    SyslogFrames(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    /** Reads the next message; false at the end of the stream (a partial last newline frame counts). */
    boolean next() throws IOException {
        length = 0;
        tooLong = 0;
        int first = peek();
        while (first == '\n' || first == '\r' || first == ' ') {
            pos++;
            first = peek();
        }
        if (first < 0) {
            return false;
        }
        if (first >= '1' && first <= '9') {
            octetCounted();
        } else {
            newlineTerminated();
        }
        return true;
    }

    private int peek() throws IOException {
        if (pos >= lim) {
            lim = in.read(buf, 0, buf.length);
            pos = 0;
            if (lim <= 0) {
                lim = 0;
                return -1;
            }
        }
        return buf[pos] & 0xff;
    }

    private void octetCounted() throws IOException {
        long n = 0;
        int digits = 0;
        for (int c; (c = peek()) != ' '; pos++) {
            if (c < '0' || c > '9' || ++digits > 9) {
                throw new IOException("an octet-counted frame must start with its length and a space (RFC 6587)");
            }
            n = n * 10 + (c - '0');
        }
        pos++; // the space
        if (n > maxBytes) {
            tooLong = n;
            for (long left = n; left > 0; ) {
                if (peek() < 0) {
                    throw new EOFException("the stream ended inside an octet-counted frame");
                }
                int take = (int) Math.min(left, lim - pos);
                pos += take;
                left -= take;
            }
            return;
        }
        while (length < n) {
            if (peek() < 0) {
                throw new EOFException("the stream ended inside an octet-counted frame");
            }
            int take = (int) Math.min(n - length, lim - pos);
            append(take);
        }
    }

    private void newlineTerminated() throws IOException {
        while (peek() >= 0) {
            int nl = -1;
            for (int i = pos; i < lim; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            int end = nl < 0 ? lim : nl;
            if (tooLong > 0 || length + (end - pos) > maxBytes) {
                tooLong += length + (end - pos);
                length = 0;
                pos = end;
            } else {
                append(end - pos);
            }
            if (nl >= 0) {
                pos = nl + 1;
                return;
            }
        }
    }

    private void append(int n) {
        if (length + n > frame.length) {
            frame = Arrays.copyOf(frame, Math.min(maxBytes, Math.max(length + n, frame.length * 2)));
        }
        System.arraycopy(buf, pos, frame, length, n);
        length += n;
        pos += n;
    }

    /** Whether bytes are already buffered or readable without blocking (the batch may wait for them). */
    boolean more() throws IOException {
        return pos < lim || in.available() > 0;
    }

    byte[] array() {
        return frame;
    }

    int length() {
        return length;
    }

    /** The message's length when it was longer than {@code maxBytes}, else 0. */
    long tooLong() {
        return tooLong;
    }

    long heldBytes() {
        return buf.length + frame.length;
    }
}
