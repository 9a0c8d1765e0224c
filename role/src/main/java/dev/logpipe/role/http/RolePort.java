package dev.logpipe.role.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A role's one HTTP port: a Jetty server with a named, bounded thread pool and one connector (plain HTTP, or TLS when
 * given), never sending its version. The role sets its routes ({@link #serve}, usually behind {@link Probes}), its
 * error page ({@link JsonErrorHandler} on {@link #server()}) and anything peculiar to it (connection caps), then
 * {@link #start}s it. {@link #close} stops accepting and lets requests in progress finish within the server's stop
 * timeout.
 */
public final class RolePort implements AutoCloseable {
    /**
     * How a port is sized.
     *
     * @param threadName the pool's thread names' prefix ({@code indexer-http}): what a thread dump shows
     * @param maxThreads enough for every request the role lets run at once plus a reserve for health checks
     * @param minThreads threads kept when idle
     * @param idleTimeout how long a connection may send nothing
     * @param requestHeadBytes the longest request line and headers (Jetty's default: 8 KiB)
     * @param dateHeader whether answers carry a {@code Date} header
     */
    public record Shape(
            String threadName,
            int maxThreads,
            int minThreads,
            Duration idleTimeout,
            int requestHeadBytes,
            boolean dateHeader) {
        /** Jetty's own limit on the request line and headers. */
        public static final int DEFAULT_REQUEST_HEAD_BYTES = 8 * 1024;
    }

    private final Server server;
    private final ServerConnector connector;
    private Handler routes;

    /**
     * @param tls the TLS context of an HTTPS port, or null for plain HTTP; clients reach roles by IP or a load
     *     balancer's name, so the host is not checked against SNI
     */
    public RolePort(InetSocketAddress listen, Shape shape, SslContextFactory.Server tls) {
        QueuedThreadPool pool = new QueuedThreadPool(shape.maxThreads(), shape.minThreads());
        pool.setName(shape.threadName());
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(shape.dateHeader());
        http.setRequestHeaderSize(shape.requestHeadBytes());
        ConnectionFactory[] factories;
        if (tls == null) {
            factories = new ConnectionFactory[] {new HttpConnectionFactory(http)};
        } else {
            HttpConfiguration https = new HttpConfiguration(http);
            https.addCustomizer(new SecureRequestCustomizer(false));
            factories =
                    new ConnectionFactory[] {new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(https)
                    };
        }
        connector = new ServerConnector(server, 1, 1, factories);
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        connector.setIdleTimeout(shape.idleTimeout().toMillis());
        server.addConnector(connector);
    }

    /** The Jetty server, for what is peculiar to a role: its error handler, beans, stop timeout. */
    public Server server() {
        return server;
    }

    /** The one connector, for connection caps. */
    public ServerConnector connector() {
        return connector;
    }

    /**
     * Sets the handler every request goes to. An answer that commits before its request's body was read to the end
     * closes the connection and says so ({@link UnreadBodyCloses}).
     */
    public void serve(Handler routes) {
        this.routes = routes;
        server.setHandler(new UnreadBodyCloses(routes));
    }

    /** The handler {@link #serve} set: to mount this role's routes in another port ({@code logpipe standalone}). */
    public Handler handler() {
        return routes;
    }

    public void start() throws Exception {
        server.start();
    }

    /** The bound address (useful with port 0). */
    public InetSocketAddress address() {
        return new InetSocketAddress(
                connector.getHost() == null ? "0.0.0.0" : connector.getHost(), connector.getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
