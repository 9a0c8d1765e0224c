package dev.logpipe.broker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: bind port 0, note the port, close. The KRaft voter list names
 * the controller's port before anything listens, so the port must be known in advance; another process can take it
 * in between, which {@link EmbeddedBroker#start} answers by trying other ports.
 */
final class FreePort {
    private FreePort() {}

    /** Two distinct free ports, for the client and the controller listener. */
    static int[] pickTwo() throws IOException {
        try (ServerSocket a = new ServerSocket();
                ServerSocket b = new ServerSocket()) {
            a.setReuseAddress(false);
            b.setReuseAddress(false);
            a.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new int[] {a.getLocalPort(), b.getLocalPort()};
        }
    }
}
