package dev.logpipe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: bind port 0, note the port, close. For a child
 * process that must listen on a port the test knows (the child cannot report an ephemeral port back).
 * Another process could take it in between; on a test machine that is rare enough to accept.
 */
public final class FreePort {
    private FreePort() {}

    public static int pick() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port", e);
        }
    }
}
