package dev.logpipe.collector.internal.compat.syslog;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Messages of one connection (or UDP socket) gathered for one pass through the ingest pipeline: each as its length
 * (4 bytes, big-endian) and bytes; a message that was too long as its negated length and no bytes.
 */
final class SyslogBatch {
    static final int MAX_MESSAGES = 1000;
    static final int MAX_BYTES = 512 * 1024;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 * 1024);
    private final DataOutputStream out = new DataOutputStream(bytes);
    private int count;

    void add(byte[] message, int len) {
        try {
            out.writeInt(len);
            out.write(message, 0, len);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        count++;
    }

    void addTooLong(long len) {
        try {
            out.writeInt((int) -Math.min(len, Integer.MAX_VALUE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        count++;
    }

    boolean full() {
        return count >= MAX_MESSAGES || bytes.size() >= MAX_BYTES;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int count() {
        return count;
    }

    byte[] take() {
        byte[] b = bytes.toByteArray();
        bytes.reset();
        count = 0;
        return b;
    }
}
