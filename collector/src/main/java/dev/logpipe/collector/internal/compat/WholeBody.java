package dev.logpipe.collector.internal.compat;

import dev.logpipe.collector.internal.ingest.BodyException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * A body read whole into memory, for wire formats that cannot be split before they are parsed (protobuf, a JSON
 * document). The buffer grows only after its new size is reserved ({@code mayHold}); the decoded body is already
 * capped at {@code limits.max_decoded_bytes} by the body decoder, so it never grows past that.
 */
public final class WholeBody {
    private WholeBody() {}

    /** The bytes of {@code in}; 503 {@link BodyException} when the memory cannot be reserved. */
    public static byte[] read(InputStream in, LongPredicate mayHold) throws IOException {
        byte[] buf = new byte[8 * 1024];
        if (!mayHold.test(buf.length)) {
            throw overBound();
        }
        int len = 0;
        for (int n; (n = in.read(buf, len, buf.length - len)) >= 0; ) {
            len += n;
            if (len == buf.length) {
                long next = (long) buf.length * 2;
                if (next > Integer.MAX_VALUE - 16 || !mayHold.test(next + len)) { // the copy holds both for a moment
                    throw overBound();
                }
                buf = Arrays.copyOf(buf, (int) next);
            }
        }
        return len == buf.length ? buf : Arrays.copyOf(buf, len);
    }

    public static BodyException overBound() {
        return new BodyException(503, "the collector is at its in-flight bound (limits.in_flight_bytes)");
    }
}
