package dev.logpipe.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/** A local HTTP endpoint that reads each request body and acknowledges it at once (for the HTTP sink benchmark). */
final class AckServer implements AutoCloseable {
    private final HttpServer server;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    private AckServer(HttpServer server) {
        this.server = server;
    }

    static AckServer start() throws IOException {
        // The JDK server writes headers and body separately; without TCP_NODELAY, Nagle plus delayed ACKs
        // add ~40 ms to every response.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        AckServer ack = new AckServer(s);
        s.createContext("/api/v1/logs", ex -> {
            long n = 0;
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = ex.getRequestBody()) {
                for (int r; (r = in.read(buf)) > 0; ) {
                    n += r;
                }
            }
            ack.bytes.addAndGet(n);
            ack.requests.incrementAndGet();
            byte[] resp = "{\"stage\":\"DURABLE_IN_BROKER\"}".getBytes();
            ex.sendResponseHeaders(200, resp.length);
            ex.getResponseBody().write(resp);
            ex.close();
        });
        s.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "ack-server");
            t.setDaemon(true);
            return t;
        }));
        s.start();
        return ack;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/logs";
    }

    long requests() {
        return requests.get();
    }

    long bytes() {
        return bytes.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
