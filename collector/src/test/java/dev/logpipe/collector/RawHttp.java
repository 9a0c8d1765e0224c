package dev.logpipe.collector;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 exchange over a plain socket, optionally from a chosen local address (127.0.0.2 is a different
 * client address than 127.0.0.1 on loopback): what the JDK client cannot do, and what an attacker does.
 */
final class RawHttp {
    /** The answer: status code, body, and the Retry-After header (null when absent). */
    record Reply(int status, String body, String retryAfter, long millis) {}

    private RawHttp() {}

    static Reply exchange(
            String localAddress,
            int port,
            String method,
            String path,
            String authorization,
            byte[] body,
            int timeoutMillis)
            throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket()) {
            if (localAddress != null) {
                s.bind(new InetSocketAddress(localAddress, 0));
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            StringBuilder head = new StringBuilder(
                    method + " " + path + " HTTP/1.1\r\nHost: collector\r\n" + "Connection: close\r\n");
            if (authorization != null) {
                head.append("Authorization: ").append(authorization).append("\r\n");
            }
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            s.getOutputStream().write(head.toString().getBytes(StandardCharsets.US_ASCII));
            if (body != null) {
                s.getOutputStream().write(body);
            }
            s.getOutputStream().flush();
            return parse(s.getInputStream(), t0);
        }
    }

    private static Reply parse(InputStream in, long t0) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0; ) {
            all.write(buf, 0, n);
        }
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete HTTP answer: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        String retryAfter = null;
        for (String l : lines) {
            if (l.toLowerCase(Locale.ROOT).startsWith("retry-after:")) {
                retryAfter = l.substring(12).trim();
            }
        }
        return new Reply(status, text.substring(end + 4), retryAfter, (System.nanoTime() - t0) / 1_000_000);
    }
}
