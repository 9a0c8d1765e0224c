package dev.logpipe.collector.ingest;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads a request body, decompressing {@code gzip} or {@code zstd}, with hard caps on the bytes read from the
 * connection and on the bytes after decompression (a small gzip bomb never becomes a large buffer).
 */
public final class BodyDecoder {
    /** The body cannot be taken: {@code status} is the HTTP status to answer with. */
    public static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        private final int status;

        Rejected(int status, String reason) {
            super(reason, null, false, false);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private final long maxWireBytes;
    private final long maxDecodedBytes;

    public BodyDecoder(long maxWireBytes, long maxDecodedBytes) {
        this.maxWireBytes = maxWireBytes;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /**
     * @param grow asked for the total bytes held before the decoded body passes each 64 KiB; false means the
     *             collector is at its in-flight bound (503)
     */
    /** A decoded body and how many bytes it took on the wire. */
    public record Decoded(byte[] body, long wireBytes) {
    }

    public Decoded read(InputStream body, String contentEncoding, java.util.function.LongPredicate grow)
            throws Rejected, IOException {
        String enc = contentEncoding == null ? "identity" : contentEncoding.trim().toLowerCase(Locale.ROOT);
        CappedInputStream wire = new CappedInputStream(body, maxWireBytes);
        InputStream decoded = switch (enc) {
            case "identity", "" -> wire;
            case "gzip", "x-gzip" -> openGzip(wire);
            case "zstd" -> new ZstdInputStream(wire).setLongMax(23); // at most an 8 MiB window per request
            default -> throw new Rejected(415, "Content-Encoding " + contentEncoding + " is not supported (use gzip, "
                    + "zstd or none)");
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        byte[] buf = new byte[64 * 1024];
        try (decoded) {
            for (int n; (n = decoded.read(buf)) > 0; ) {
                long total = out.size() + (long) n;
                if (total > maxDecodedBytes) {
                    throw new Rejected(413, "the body decompresses to more than limits.max_decoded_bytes ("
                            + maxDecodedBytes + " bytes)");
                }
                if (!grow.test(total)) {
                    throw new Rejected(503, "the collector is at its in-flight bound (limits.in_flight_bytes)");
                }
                out.write(buf, 0, n);
            }
        } catch (CappedInputStream.TooLarge e) {
            throw new Rejected(413, "the body is larger than limits.max_body_bytes (" + maxWireBytes + " bytes)");
        } catch (ZipException | com.github.luben.zstd.ZstdIOException e) {
            throw new Rejected(400, "the body is not valid " + enc + ": " + e.getMessage());
        } catch (java.io.EOFException e) {
            throw new Rejected(400, "the " + enc + " body ends early (truncated)");
        }
        return new Decoded(out.toByteArray(), wire.count);
    }

    private static InputStream openGzip(InputStream wire) throws Rejected, IOException {
        try {
            return new GZIPInputStream(wire, 64 * 1024);
        } catch (ZipException | java.io.EOFException e) {
            throw new Rejected(400, "the body is not valid gzip: " + e.getMessage());
        }
    }

    /** Counts the bytes read from the connection and fails past the cap. */
    private static final class CappedInputStream extends java.io.FilterInputStream {
        static final class TooLarge extends IOException {
            private static final long serialVersionUID = 1L;
        }

        private final long cap;
        private long count;

        CappedInputStream(InputStream in, long cap) {
            super(in);
            this.cap = cap;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && ++count > cap) {
                throw new TooLarge();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && (count += n) > cap) {
                throw new TooLarge();
            }
            return n;
        }
    }
}
