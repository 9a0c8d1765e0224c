package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import java.time.InstantSource;
import java.time.ZoneOffset;

/**
 * The CRI log format (containerd, CRI-O): {@code 2026-12-01T08:00:00.123456789Z stdout F message}. The tag
 * is {@code F} for a full line or the last piece of one, {@code P} for a piece that continues in the next
 * line of the same stream (tags may be joined with {@code :}; {@code P} among them marks a piece).
 */
public final class CriLines extends ContainerLines {
    private final TimeParser rfc3339 = TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());

    public CriLines(int maxBytes) {
        super(maxBytes);
    }

    @Override
    protected boolean decode(byte[] b, int off, int len) {
        int end = off + len;
        int s1 = ByteScan.indexOf(b, off, end, (byte) ' ');
        if (s1 < 0) {
            return false;
        }
        long t = rfc3339.parse(b, off, s1 - off);
        if (t == TimeParser.NONE) {
            return false;
        }
        int s2 = ByteScan.indexOf(b, s1 + 1, end, (byte) ' ');
        if (s2 < 0) {
            return false;
        }
        int n = s2 - s1 - 1;
        if (n == 6
                && b[s1 + 1] == 's'
                && b[s1 + 2] == 't'
                && b[s1 + 3] == 'd'
                && b[s1 + 4] == 'o'
                && b[s1 + 5] == 'u'
                && b[s1 + 6] == 't') {
            stream = Emitter.STDOUT;
        } else if (n == 6
                && b[s1 + 1] == 's'
                && b[s1 + 2] == 't'
                && b[s1 + 3] == 'd'
                && b[s1 + 4] == 'e'
                && b[s1 + 5] == 'r'
                && b[s1 + 6] == 'r') {
            stream = Emitter.STDERR;
        } else {
            return false;
        }
        int tagEnd = ByteScan.indexOf(b, s2 + 1, end, (byte) ' ');
        if (tagEnd < 0) {
            tagEnd = end; // "... stdout F" with nothing after it: an empty line
        }
        if (tagEnd == s2 + 1) {
            return false;
        }
        boolean p = false;
        for (int i = s2 + 1; i < tagEnd; i++) {
            byte c = b[i];
            if (c == 'P') {
                p = true;
            } else if (c != 'F' && c != ':' && (c < 'A' || c > 'Z')) {
                return false;
            }
        }
        time = t;
        partial = p;
        content = b;
        contentOff = Math.min(tagEnd + 1, end);
        contentLen = end - contentOff;
        return true;
    }
}
