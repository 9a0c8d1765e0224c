package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.record.JsonBuffer;
import java.util.Arrays;

/**
 * The records of a {@link Batch} whose encoding is left to a parse thread: each record's bytes (copied, since the
 * reader's buffer is reused), its transform attributes, runtime time and flags, and the signal that the batch is
 * encoded. Written by the reading thread, then (handed over through a queue) read by one parse thread, which
 * signals the publish thread.
 * {@code add} takes the record's parts as parameters rather than a value record: it runs once per record on
 * the reading thread's hot path and stores them into arrays at once (not measured as a record; see
 * docs/benchmarks.md, "Value records on the per-line path", for the one that was).
 */
final class DeferredRecords {
    private static final int TRUNCATED = 1 << 30;

    private final JsonBuffer bytes = new JsonBuffer(64 * 1024);
    private int[] offset = new int[256];
    private Attributes[] attrs = new Attributes[256];
    private long[] runtimeTime = new long[256];
    private int[] flags = new int[256];
    private int count;
    private boolean encoded;
    private Throwable failure;

    void reset() {
        bytes.reset();
        Arrays.fill(attrs, 0, count, null);
        count = 0;
        synchronized (this) {
            encoded = false;
            failure = null;
        }
    }

    void add(byte[] b, int off, int len, boolean truncated, Attributes a, long time, int f) {
        if (count == offset.length) {
            int n = count * 2;
            offset = Arrays.copyOf(offset, n);
            attrs = Arrays.copyOf(attrs, n);
            runtimeTime = Arrays.copyOf(runtimeTime, n);
            flags = Arrays.copyOf(flags, n);
        }
        offset[count] = bytes.size();
        bytes.raw(b, off, len);
        attrs[count] = a;
        runtimeTime[count] = time;
        flags[count] = truncated ? f | TRUNCATED : f;
        count++;
    }

    byte[] bytes() {
        return bytes.array();
    }

    int offset(int i) {
        return offset[i];
    }

    int length(int i) {
        return (i + 1 < count ? offset[i + 1] : bytes.size()) - offset[i];
    }

    Attributes attributes(int i) {
        return attrs[i];
    }

    long runtimeTime(int i) {
        return runtimeTime[i];
    }

    int flags(int i) {
        return flags[i] & ~TRUNCATED;
    }

    boolean truncated(int i) {
        return (flags[i] & TRUNCATED) != 0;
    }

    synchronized void done(Throwable why) {
        encoded = true;
        failure = why;
        notifyAll();
    }

    synchronized Throwable await() throws InterruptedException {
        while (!encoded) {
            wait();
        }
        return failure;
    }
}
