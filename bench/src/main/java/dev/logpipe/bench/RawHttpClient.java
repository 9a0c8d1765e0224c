package dev.logpipe.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal HTTP/1.1 client over one kept-alive socket, for load generation: it writes a prepared request and
 * reads the status, headers and body of the answer, nothing more, so the load generator spends its CPU on
 * little but the socket (the JDK client costs more than the collector work it measures, on a 2-core box).
 * Reconnects when the server closes.
 */
final class RawHttpClient implements AutoCloseable, CompatBodies.Sender {
    private final String host;
    private final int port;
    private Socket socket;
    private OutputStream out;
    private InputStream in;

    RawHttpClient(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** A complete request: headers for {@code path} with the given extra header lines, then {@code body}. */
    static byte[] post(String path, String extraHeaders, byte[] body) {
        return post(path, "application/x-ndjson", extraHeaders, body);
    }

    static byte[] post(String path, String contentType, String extraHeaders, byte[] body) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: bench\r\nContent-Type: " + contentType + "\r\n"
                        + extraHeaders + "Content-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /** Sends {@code request} and returns the answer's status code. */
    public int send(byte[] request) throws IOException {
        if (socket == null) {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        }
        try {
            out.write(request);
            out.flush();
            String status = line();
            if (status == null) {
                throw new IOException("connection closed before an answer");
            }
            int code = Integer.parseInt(status.substring(9, 12));
            long length = 0;
            boolean close = false;
            for (String h; (h = line()) != null && !h.isEmpty(); ) {
                String lower = h.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(h.substring(15).trim());
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            in.skipNBytes(length);
            if (close) {
                close();
            }
            return code;
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        for (int c; (c = in.read()) >= 0; ) {
            if (c == '\n') {
                int n = b.length();
                return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
            }
            b.append((char) c);
        }
        return b.isEmpty() ? null : b.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a socket we are done with
            }
            socket = null;
        }
    }
}
