package dev.logpipe.collector.http;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.SelectableChannelEndPoint;

/**
 * Closes a new connection at once when its client address already holds {@code max} open connections (slow or
 * idle connections of one address cannot use up the file handles others need). Behind a load balancer every
 * client shares the balancer's addresses: raise the cap there ({@code limits.max_connections_per_address}).
 */
final class ConnectionsPerAddress implements Connection.Listener {
    private final int max;
    private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();
    /** The address each open connection was counted under (a closed endpoint no longer tells its address). */
    private final ConcurrentHashMap<Connection, String> counted = new ConcurrentHashMap<>();

    private final AtomicLong refused = new AtomicLong();

    ConnectionsPerAddress(int max) {
        this.max = max;
    }

    @Override
    public void onOpened(Connection connection) {
        if (!(connection.getEndPoint() instanceof SelectableChannelEndPoint)) {
            return; // the HTTP connection inside a TLS one: the TLS connection on the socket is the one counted
        }
        String address = address(connection.getEndPoint().getRemoteSocketAddress());
        counted.put(connection, address);
        int now = open.merge(address, 1, Integer::sum);
        if (now > max) {
            refused.incrementAndGet();
            connection.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        String address = counted.remove(connection);
        if (address == null) {
            return;
        }
        open.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
    }

    long refused() {
        return refused.get();
    }

    static String address(SocketAddress a) {
        if (a instanceof InetSocketAddress inet) {
            return inet.getAddress() == null
                    ? inet.getHostString()
                    : inet.getAddress().getHostAddress();
        }
        return String.valueOf(a);
    }
}
