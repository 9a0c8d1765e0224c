package dev.logpipe.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerMainTest {
    @TempDir
    Path dir;

    @Test
    void aTakenPortIsOneLineNamingThePortAndTheFlagWithExitCode4() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            PrintStream original = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code;
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            try {
                code = BrokerMain.run("--port", Integer.toString(port), "--data", dir.toString());
            } finally {
                System.setErr(original);
            }
            assertThat(code).isEqualTo(4);
            String text = err.toString(StandardCharsets.UTF_8);
            assertThat(text.lines().toList())
                    .containsExactly("logpipe broker: port " + port
                            + " on 127.0.0.1 is already in use (another broker?); choose another with --port N");
            assertThat(BrokerMain.busyPort(port, "--controller-port")).contains("--controller-port");
            assertThat(BrokerMain.busyPort(0, "--port")).isNull();
        }
    }
}
