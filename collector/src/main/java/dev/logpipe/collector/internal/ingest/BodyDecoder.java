package dev.logpipe.collector.internal.ingest;

import com.github.luben.zstd.ZstdIOException;
import com.github.luben.zstd.ZstdInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.function.LongPredicate;
import java.util.zip.ZipException;

/**
 * Opens a request body as a stream of decoded bytes: {@code gzip} (strict, see {@link StrictGzipInputStream}),
 * {@code zstd} (window at most 8 MiB) or identity, with hard caps on the bytes read from the connection and on the
 * bytes after decompression, and a check that the body is UTF-8 (a UTF-16 byte-order mark is refused; a UTF-8 one
 * is skipped). Nothing is buffered beyond the decompressor's own window: the caller reads line by line, and
 * closes the body to free the decompressor (the connection's stream stays open). Every failure surfaces from
 * {@code read} as a {@link BodyException} with the status to answer.
 */
public final class BodyDecoder {
    /** Working memory of one decoder, held against the in-flight bound for the request's whole life. */
    public static long workingBytes(String contentEncoding) {
        return switch (normalize(contentEncoding)) {
            case "zstd" -> (8L << 20) + (256 << 10); // the largest window allowed, plus buffers
            case "gzip", "x-gzip" -> 256 << 10;
            default -> 128 << 10;
        };
    }

    private final long maxWireBytes;
    private final long maxDecodedBytes;

    public BodyDecoder(long maxWireBytes, long maxDecodedBytes) {
        this.maxWireBytes = maxWireBytes;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /** A decoded body; the wire bytes under it are charged to the tenant as they are read. */
    public static final class Body extends FilterInputStream {
        private Body(InputStream decoded) {
            super(decoded);
        }
    }

    /**
     * @param takeBytes charged with the wire bytes as they are read (the tenant's bytes/s limit); false stops the
     *                  body with a 429
     * @throws BodyException 415 for an encoding other than gzip, zstd or none
     */
    public Body open(InputStream wire, String contentEncoding, LongPredicate takeBytes) throws IOException {
        return open(wire, contentEncoding, takeBytes, true);
    }

    /**
     * @param text whether the body is text (the UTF-16/32 byte-order-mark check applies); false for binary formats
     *             (protobuf, snappy), whose first bytes may be anything
     */
    public Body open(InputStream wire, String contentEncoding, LongPredicate takeBytes, boolean text)
            throws IOException {
        // Closing the body frees the decoder (the inflater, the zstd window) but never the connection's stream,
        // which the caller may still drain.
        Wire counted = new Wire(
                new FilterInputStream(wire) {
                    @Override
                    public void close() {}
                },
                maxWireBytes,
                takeBytes);
        String enc = normalize(contentEncoding);
        InputStream decoded = switch (enc) {
            case "identity", "" -> counted;
            case "gzip", "x-gzip" -> new StrictGzipInputStream(counted);
            case "zstd" -> new ZstdInputStream(counted).setLongMax(23);
            default ->
                throw new BodyException(
                        415, "Content-Encoding " + contentEncoding + " is not supported (use " + "gzip, zstd or none)");
        };
        return new Body(new Decoded(decoded, enc, maxDecodedBytes, text));
    }

    private static String normalize(String contentEncoding) {
        return contentEncoding == null ? "identity" : contentEncoding.trim().toLowerCase(Locale.ROOT);
    }

    /** The bytes from the connection: counted, capped, charged. */
    private static final class Wire extends BlockInputStream {
        private final long cap;
        private final LongPredicate takeBytes;
        private long count;

        Wire(InputStream in, long cap, LongPredicate takeBytes) {
            super(in);
            this.cap = cap;
            this.takeBytes = takeBytes;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
                if (count > cap) {
                    throw new BodyException(413, "the body is larger than limits.max_body_bytes (" + cap + " bytes)");
                }
                if (!takeBytes.test(n)) {
                    throw new BodyException(429, "bytes_per_second");
                }
            }
            return n;
        }
    }

    /** The decoded bytes: capped, checked for a byte-order mark, decoder errors turned into 400s. */
    private static final class Decoded extends BlockInputStream {
        private final String encoding;
        private final long cap;
        private final boolean text;
        private long count;

        Decoded(InputStream in, String encoding, long cap, boolean text) {
            super(in);
            this.encoding = encoding;
            this.cap = cap;
            this.text = text;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = super.read(b, off, len);
                if (count == 0 && n > 0 && text) {
                    // A byte-order mark may arrive split over reads (a slow client, a small inflate step).
                    while (n < 3 && n < len) {
                        int more = super.read(b, off + n, len - n);
                        if (more <= 0) {
                            break;
                        }
                        n += more;
                    }
                    return firstBytes(b, off, n, len);
                }
            } catch (BodyException e) {
                throw e;
            } catch (ZipException | ZstdIOException e) {
                throw new BodyException(400, "the body is not valid " + encoding + ": " + e.getMessage());
            } catch (EOFException e) {
                throw new BodyException(400, "the " + encoding + " body ends early (truncated)");
            }
            return counted(n);
        }

        private int counted(int n) throws BodyException {
            if (n > 0 && (count += n) > cap) {
                throw new BodyException(
                        413, "the body decompresses to more than limits.max_decoded_bytes (" + cap + " bytes)");
            }
            return n;
        }

        /** The start of the body: a UTF-16/32 byte-order mark is refused, a UTF-8 one dropped. */
        private int firstBytes(byte[] b, int off, int n, int len) throws IOException {
            int b0 = b[off] & 0xff;
            int b1 = n > 1 ? b[off + 1] & 0xff : -1;
            if ((b0 == 0xfe && b1 == 0xff) || (b0 == 0xff && b1 == 0xfe) || (b0 == 0 && b1 == 0)) {
                throw new BodyException(
                        415,
                        "the body is not UTF-8 (it starts with a UTF-16 or UTF-32 byte-order "
                                + "mark); send UTF-8 NDJSON");
            }
            if (b0 == 0xef && b1 == 0xbb && n > 2 && (b[off + 2] & 0xff) == 0xbf) {
                count += 3;
                System.arraycopy(b, off + 3, b, off, n - 3);
                return n == 3 ? read(b, off, len) : counted(n - 3);
            }
            return counted(n);
        }
    }
}
