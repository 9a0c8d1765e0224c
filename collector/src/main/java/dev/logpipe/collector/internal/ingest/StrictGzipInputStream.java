package dev.logpipe.collector.internal.ingest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * A gzip body (RFC 1952), one or more members, read strictly: anything after the last member that is not another
 * member is an error, and so is a bad CRC or length, or a header CRC (FHCRC) that does not match (the JDK's
 * {@code GZIPInputStream} ignores trailing garbage).
 * Inflating is the JDK's {@link Inflater}; this class only frames it. Memory: one 64 KiB input buffer.
 */
final class StrictGzipInputStream extends BlockInputStream {
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;

    private final byte[] buf = new byte[64 * 1024];
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    /** The CRC32 of the member header read so far, for its optional CRC16 (RFC 1952 FHCRC). */
    private final CRC32 headerCrc = new CRC32();

    private boolean inHeader;
    private int pos;
    private int lim;
    private boolean inMember;
    private boolean done;
    private boolean first = true;
    private long memberSize;

    StrictGzipInputStream(InputStream in) {
        super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (!done) {
            if (!inMember) {
                if (!header()) {
                    done = true;
                    break;
                }
                continue;
            }
            if (inflater.needsInput()) {
                if (pos >= lim && !fill()) {
                    throw new EOFException("the gzip body ends early (truncated)");
                }
                inflater.setInput(buf, pos, lim - pos);
                pos = lim;
            }
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new ZipException("invalid deflate data: " + e.getMessage());
            }
            if (n > 0) {
                crc.update(b, off, n);
                memberSize += n;
            }
            if (inflater.finished()) {
                pos = lim - inflater.getRemaining();
                trailer();
            } else if (n == 0 && (inflater.needsDictionary())) {
                throw new ZipException("the gzip body asks for a preset dictionary");
            }
            if (n > 0) {
                return n;
            }
        }
        return -1;
    }

    /** Reads one member header; false at a clean end after at least one member. */
    private boolean header() throws IOException {
        headerCrc.reset();
        inHeader = true;
        int id1 = next();
        if (id1 < 0) {
            if (first) {
                throw new EOFException("the gzip body is empty");
            }
            return false;
        }
        int id2 = next();
        if (id1 != 0x1f || id2 != 0x8b) {
            throw new ZipException(first ? "not in gzip format" : "data after the end of the gzip stream");
        }
        if (need() != 8) {
            throw new ZipException("unsupported gzip compression method (only deflate)");
        }
        int flags = need();
        for (int i = 0; i < 6; i++) {
            need(); // mtime, xfl, os
        }
        if ((flags & FEXTRA) != 0) {
            int xlen = need() | need() << 8;
            for (int i = 0; i < xlen; i++) {
                need();
            }
        }
        if ((flags & FNAME) != 0) {
            while (need() != 0) {
                // skip the file name
            }
        }
        if ((flags & FCOMMENT) != 0) {
            while (need() != 0) {
                // skip the comment
            }
        }
        inHeader = false;
        if ((flags & FHCRC) != 0) {
            int expected = need() | need() << 8;
            if (expected != (int) (headerCrc.getValue() & 0xffff)) {
                throw new ZipException("gzip header CRC mismatch (corrupt body)");
            }
        }
        first = false;
        inMember = true;
        inflater.reset();
        crc.reset();
        memberSize = 0;
        return true;
    }

    private void trailer() throws IOException {
        long expectedCrc = readIntLe();
        long expectedSize = readIntLe();
        if (expectedCrc != crc.getValue()) {
            throw new ZipException("gzip CRC mismatch (corrupt body)");
        }
        if (expectedSize != (memberSize & 0xffffffffL)) {
            throw new ZipException("gzip length mismatch (corrupt body)");
        }
        inMember = false;
    }

    private long readIntLe() throws IOException {
        return (need() | (long) need() << 8 | (long) need() << 16 | (long) need() << 24) & 0xffffffffL;
    }

    private int need() throws IOException {
        int c = next();
        if (c < 0) {
            throw new EOFException("the gzip body ends early (truncated)");
        }
        return c;
    }

    private int next() throws IOException {
        if (pos >= lim && !fill()) {
            return -1;
        }
        int c = buf[pos++] & 0xff;
        if (inHeader) {
            headerCrc.update(c);
        }
        return c;
    }

    private boolean fill() throws IOException {
        int n = in.read(buf, 0, buf.length);
        if (n <= 0) {
            return false;
        }
        pos = 0;
        lim = n;
        return true;
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        in.close();
    }
}
