package dev.logpipe.forwarder.internal.parse;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.time.Duration;
import java.util.Arrays;

/**
 * Groups lines into records: a line matching the header pattern starts a record, other lines continue
 * it (docs/watermarks-and-restarts.md, "Multiline parser and watermarks"). The held record is emitted when the next header
 * arrives, when no line has arrived for {@code flushInterval} (zero: never by idleness), or on
 * {@link #flush}. Its end offset is the end of its last physical line; its container time and stream are its
 * first line's. A record is bounded by
 * {@code maxBytes} and {@code maxLines}; what exceeds them is dropped and the record marked truncated.
 * {@code line} takes primitives for the reason {@link Parser} gives.
 */
public final class MultilineParser implements Parser {
    private final Matcher header;
    private final long flushIntervalNanos;
    private final int maxBytes;
    private final int maxLines;

    private byte[] buf = new byte[1024];
    private int len;
    private int keptLines;
    private int coveredLines;
    private boolean truncated;
    private long start = -1;
    private long end;
    private long lastLineNanos;
    private long time;
    private int flags;
    private byte[] scratch = new byte[256];

    public MultilineParser(String headerPattern, Duration flushInterval, int maxBytes, int maxLines) {
        this.header = Pattern.compile(headerPattern).matcher(new byte[0]);
        this.flushIntervalNanos = flushInterval.toNanos();
        this.maxBytes = maxBytes;
        this.maxLines = maxLines;
    }

    @Override
    public void line(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            boolean lineTruncated,
            long lineTime,
            int lineFlags,
            long nowNanos,
            Emitter out) {
        if (isHeader(bytes, off, len) || start < 0) {
            flush(out);
            start = startOffset;
            time = lineTime; // the record's time is its first line's
            flags = lineFlags;
        } else {
            flags |= lineFlags & Emitter.PARTIAL;
        }
        append(bytes, off, len, lineTruncated);
        end = endOffset;
        lastLineNanos = nowNanos;
    }

    @Override
    public boolean flushIfIdle(long nowNanos, Emitter out) {
        if (start < 0 || flushIntervalNanos == 0 || nowNanos - lastLineNanos < flushIntervalNanos) {
            return false;
        }
        flush(out);
        return true;
    }

    @Override
    public void flush(Emitter out) {
        if (start < 0) {
            return;
        }
        out.record(buf, 0, len, start, end, coveredLines, truncated, time, flags);
        discard();
    }

    @Override
    public void discard() {
        start = -1;
        len = 0;
        keptLines = 0;
        coveredLines = 0;
        truncated = false;
        if (buf.length > 64 * 1024) {
            buf = new byte[1024];
        }
    }

    @Override
    public boolean hasPending() {
        return start >= 0;
    }

    private boolean isHeader(byte[] bytes, int off, int n) {
        if (scratch.length != n) {
            scratch = Arrays.copyOfRange(bytes, off, off + n);
        } else {
            System.arraycopy(bytes, off, scratch, 0, n);
        }
        header.reset(scratch);
        return header.find();
    }

    private void append(byte[] bytes, int off, int n, boolean lineTruncated) {
        truncated |= lineTruncated;
        coveredLines++;
        if (keptLines >= maxLines) {
            truncated = true;
            return;
        }
        int sep = keptLines > 0 ? 1 : 0;
        int room = maxBytes - len - sep;
        if (room <= 0) {
            truncated = true;
            return;
        }
        if (n > room) {
            n = room;
            truncated = true;
        }
        if (len + sep + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.min(maxBytes, Math.max(buf.length * 2, len + sep + n)));
        }
        if (sep == 1) {
            buf[len++] = '\n';
        }
        System.arraycopy(bytes, off, buf, len, n);
        len += n;
        keptLines++;
    }
}
