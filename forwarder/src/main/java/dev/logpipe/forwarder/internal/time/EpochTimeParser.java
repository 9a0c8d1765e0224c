package dev.logpipe.forwarder.internal.time;

/**
 * A count since the epoch in one unit (seconds, milliseconds, microseconds or nanoseconds), as digits with an
 * optional fraction after a {@code .} (JSON loggers write {@code 1733040000.123} for seconds).
 */
final class EpochTimeParser implements TimeParser {
    private final long nanosPerUnit;

    /** @param unitDigits 9 for seconds, 6 for milliseconds, 3 for microseconds, 0 for nanoseconds */
    EpochTimeParser(int unitDigits) {
        long n = 1;
        for (int i = 0; i < unitDigits; i++) {
            n *= 10;
        }
        this.nanosPerUnit = n;
    }

    @Override
    public long parse(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        long whole = 0;
        int digits = 0;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            if (++digits > 19) {
                return NONE;
            }
            whole = whole * 10 + (b[i] - '0');
            i++;
        }
        if (digits == 0) {
            return NONE;
        }
        long fracNanos = 0;
        if (i < end) {
            if (b[i] != '.' || i + 1 == end) {
                return NONE;
            }
            i++;
            long scale = nanosPerUnit;
            while (i < end) {
                int c = b[i] - '0';
                if (c < 0 || c > 9) {
                    return NONE;
                }
                scale /= 10;
                fracNanos += c * scale;
                i++;
            }
        }
        if (whole > (Long.MAX_VALUE - fracNanos) / nanosPerUnit) {
            return NONE;
        }
        return whole * nanosPerUnit + fracNanos;
    }
}
