package dev.logpipe.forwarder.internal.watermark;

/**
 * How far one source file has been published: {@code offset} bytes from its start (always at a line
 * boundary), and the identity the file had then. {@code device}, {@code fingerprint} and {@code size}
 * are our additions to the original format; an original-format entry has {@code device = UNKNOWN},
 * {@code fingerprint = null} and {@code size = UNKNOWN}.
 *
 * @param fingerprint      hex hash of the file's first bytes (up to its first newline, at most 256 bytes), or null
 * @param fingerprintBytes how many leading bytes {@code fingerprint} covers
 * @param size             the file's size when the watermark was last written, to count unread bytes of a lost file
 */
public record Watermark(long offset, long inode, long device, String fingerprint, int fingerprintBytes, long size) {
    public static final long UNKNOWN = -1;

    public Watermark {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        if (fingerprintBytes < 0) {
            throw new IllegalArgumentException("fingerprintBytes must be >= 0, was " + fingerprintBytes);
        }
    }
}
