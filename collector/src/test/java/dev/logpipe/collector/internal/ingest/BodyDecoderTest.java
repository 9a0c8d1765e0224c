package dev.logpipe.collector.internal.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class BodyDecoderTest {
    private final BodyDecoder decoder = new BodyDecoder(1 << 20, 1 << 22);

    private byte[] decode(byte[] body, String encoding) throws IOException {
        return decode(new ByteArrayInputStream(body), encoding);
    }

    private byte[] decode(InputStream body, String encoding) throws IOException {
        try (InputStream in = decoder.open(body, encoding, n -> true)) {
            return in.readAllBytes();
        }
    }

    static byte[] gzip(String s) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
            gz.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return bos.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static int statusOf(ThrowingRead read) {
        try {
            read.run();
        } catch (BodyException e) {
            return e.status();
        } catch (IOException e) {
            throw new AssertionError("expected a BodyException, got " + e, e);
        }
        throw new AssertionError("expected a BodyException");
    }

    interface ThrowingRead {
        void run() throws IOException;
    }

    @Test
    void gzipMembersAreReadInOrderIncludingConcatenatedOnes() throws IOException {
        byte[] two = concat(gzip("{\"message\":\"one\"}\n"), gzip("{\"message\":\"two\"}\n"));
        assertThat(new String(decode(two, "gzip"), StandardCharsets.UTF_8))
                .isEqualTo("{\"message\":\"one\"}\n{\"message\":\"two\"}\n");
        String big = "x".repeat(300_000);
        assertThat(decode(gzip(big), "gzip")).hasSize(300_000);
    }

    @Test
    void gzipFollowedByTrailingGarbageIsRefusedWith400() throws IOException {
        byte[] body =
                concat(gzip("{\"message\":\"ok\"}\n"), "garbage after the stream".getBytes(StandardCharsets.UTF_8));
        assertThat(statusOf(() -> decode(body, "gzip"))).isEqualTo(400);
    }

    @Test
    void truncatedOrCorruptGzipIsRefusedWith400() throws IOException {
        byte[] whole = gzip("{\"message\":\"ok\"}\n".repeat(100));
        assertThat(statusOf(() -> decode(Arrays.copyOf(whole, whole.length - 3), "gzip")))
                .isEqualTo(400);
        byte[] badCrc = whole.clone();
        badCrc[badCrc.length - 6] ^= 0x55;
        assertThat(statusOf(() -> decode(badCrc, "gzip"))).isEqualTo(400);
        assertThat(statusOf(() -> decode("plain text".getBytes(StandardCharsets.UTF_8), "gzip")))
                .isEqualTo(400);
    }

    @Test
    void aUtf16BodyIsRefusedWith415AndAUtf8ByteOrderMarkIsDropped() throws IOException {
        byte[] utf16 = "{\"message\":\"x\"}\n".getBytes(StandardCharsets.UTF_16); // starts with FE FF
        assertThat(statusOf(() -> decode(utf16, "identity"))).isEqualTo(415);
        byte[] le = concat(new byte[] {(byte) 0xff, (byte) 0xfe}, "{".getBytes(StandardCharsets.UTF_16LE));
        assertThat(statusOf(() -> decode(le, null))).isEqualTo(415);
        byte[] bom =
                concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "{}\n".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(decode(bom, null), StandardCharsets.UTF_8)).isEqualTo("{}\n");
    }

    @Test
    void aByteOrderMarkSplitOverReadsIsStillSeen() throws IOException {
        byte[] bom =
                concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "{}\n".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(decode(new OneByteAtATime(bom), null), StandardCharsets.UTF_8))
                .isEqualTo("{}\n");
        byte[] utf16 = "{}".getBytes(StandardCharsets.UTF_16);
        assertThat(statusOf(() -> decode(new OneByteAtATime(utf16), null))).isEqualTo(415);
    }

    /** A client that sends one byte per packet. */
    private static final class OneByteAtATime extends FilterInputStream {
        OneByteAtATime(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(1, len));
        }
    }

    @Test
    void aBinaryBodyIsNotCheckedForAByteOrderMarkItsFirstBytesMayBeAnything() throws IOException {
        for (byte[] start : new byte[][] {
            {(byte) 0xfe, (byte) 0xff}, {(byte) 0xff, (byte) 0xfe}, {0, 0}, {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}
        }) {
            byte[] body = concat(start, new byte[] {1, 2, 3});
            try (InputStream in = decoder.open(new ByteArrayInputStream(body), null, n -> true, false)) {
                assertThat(in.readAllBytes()).isEqualTo(body);
            }
        }
    }

    @Test
    void aGzipHeaderCrcIsCheckedWhenTheHeaderCarriesOne() throws IOException {
        byte[] good = gzipWithHeaderCrc("{\"message\":\"ok\"}\n", false);
        assertThat(new String(decode(good, "gzip"), StandardCharsets.UTF_8)).isEqualTo("{\"message\":\"ok\"}\n");
        assertThat(statusOf(() -> decode(gzipWithHeaderCrc("{}\n", true), "gzip")))
                .isEqualTo(400);
    }

    /** A gzip member with FHCRC set (RFC 1952 2.3.1): the header's CRC16 after the fixed fields. */
    private static byte[] gzipWithHeaderCrc(String text, boolean corruptHeaderCrc) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        byte[] header = {0x1f, (byte) 0x8b, 8, 2, 0, 0, 0, 0, 0, (byte) 255};
        CRC32 hc = new CRC32();
        hc.update(header);
        int crc16 = (int) hc.getValue() & 0xffff ^ (corruptHeaderCrc ? 1 : 0);
        Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        d.setInput(data);
        d.finish();
        byte[] raw = new byte[data.length + 64];
        int rawLen = d.deflate(raw);
        d.end();
        CRC32 dc = new CRC32();
        dc.update(data);
        ByteBuffer out = ByteBuffer.allocate(header.length + 2 + rawLen + 8).order(ByteOrder.LITTLE_ENDIAN);
        out.put(header)
                .putShort((short) crc16)
                .put(raw, 0, rawLen)
                .putInt((int) dc.getValue())
                .putInt(data.length);
        return out.array();
    }

    @Test
    void decodedBytesPastTheCapAre413AndWireBytesPastTheirCapToo() throws IOException {
        byte[] bomb = gzip(" ".repeat(5 << 20));
        assertThat(statusOf(() -> decode(bomb, "gzip"))).isEqualTo(413);
        byte[] wire = new byte[(1 << 20) + 1];
        Arrays.fill(wire, (byte) ' ');
        assertThat(statusOf(() -> decode(wire, "identity"))).isEqualTo(413);
    }

    @Test
    void theBytesLimitStopsTheBodyWith429() {
        assertThat(statusOf(() -> {
                    try (InputStream in = decoder.open(new ByteArrayInputStream(new byte[1000]), null, n -> false)) {
                        in.readAllBytes();
                    }
                }))
                .isEqualTo(429);
    }

    @Test
    void anUnknownEncodingIs415() {
        assertThat(statusOf(() -> decode(new byte[] {1}, "br"))).isEqualTo(415);
    }
}
