package dev.logpipe.collector.internal.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A filter whose work is all in {@link #read(byte[], int, int)}: a single-byte read goes through it too, so no
 * byte bypasses a subclass's counting, caps or checks.
 */
abstract class BlockInputStream extends FilterInputStream {
    BlockInputStream(InputStream in) {
        super(in);
    }

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }
}
