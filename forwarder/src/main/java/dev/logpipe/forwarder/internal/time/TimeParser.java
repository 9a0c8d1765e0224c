package dev.logpipe.forwarder.internal.time;

/**
 * Reads a timestamp of one fixed layout from ASCII bytes. The common case (the text is in the layout) costs
 * no allocation and throws nothing; text that is not in the layout gives {@link #NONE}. One instance per
 * thread: parsers keep small caches (the zone's offset, the current day).
 */
public interface TimeParser {
    /** The result for text that is not a timestamp of this layout. */
    long NONE = Long.MIN_VALUE;

    /** Nanoseconds since the epoch (1970-01-01T00:00Z) of the timestamp in {@code b[off, off + len)}, or {@link #NONE}. */
    long parse(byte[] b, int off, int len);

    /** The same for text; non-ASCII text is never a timestamp. */
    default long parse(CharSequence s) {
        int n = s.length();
        if (n > 64) {
            return NONE;
        }
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0x7F) {
                return NONE;
            }
            b[i] = (byte) c;
        }
        return parse(b, 0, n);
    }
}
