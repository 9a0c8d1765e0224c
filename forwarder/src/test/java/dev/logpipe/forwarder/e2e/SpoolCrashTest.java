package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.LogFile;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The disk spool with a real child forwarder: while the HTTP endpoint is down the watermark still reaches
 * the end of the file (the lines are in the fsynced spool), a kill -9 then loses nothing, and the restarted
 * forwarder delivers the spooled lines before the new ones once the endpoint is up.
 */
class SpoolCrashTest extends WorkspaceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private int port;
    private HttpServer server;

    @BeforeEach
    void configure() {
        port = FreePort.pick();
        ws.config()
                .set("sink.type", "http")
                .set("sink.http.url", "http://127.0.0.1:" + port + "/api/v1/logs")
                .set("sink.http.compression", "none")
                .set("sink.spool.enabled", true)
                .set("sink.spool.path", "spool")
                .set("sink.spool.max_bytes", "8MiB")
                .set("sink.spool.segment_bytes", "1MiB");
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
    }

    private void startEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        server.createContext("/api/v1/logs", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            for (String line : body.split("\n")) {
                received.add(JSON.readTree(line).get("message").asText());
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
    }

    @Test
    void spooledLinesSurviveAKillNineAndAreDeliveredInOrderWhenTheEndpointReturns() throws Exception {
        LogFile app = ws.logFile("app.log").lines(Lines.numbered(1, 500));
        Path file = ws.log("app.log");
        ForwarderProcess first = ws.startAndAwait();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> WatermarkFile.offset(ws.watermarks(), file) == Files.size(file));
        assertThat(first.metrics().value("log_forwarder_spool_records"))
                .as("all 500 wait in the spool")
                .isEqualTo(500);
        assertThat(first.metrics().value("log_forwarder_sink_up")).isZero();
        first.kill();

        startEndpoint();
        app.lines(Lines.numbered(501, 600));
        ForwarderProcess second = ws.startAndAwait();
        await().atMost(Duration.ofSeconds(30)).until(() -> received.size() >= 600);
        assertThat(received)
                .as("each line once, spooled ones first, in file order")
                .containsExactly(Lines.numbered(1, 600));
        await().atMost(Duration.ofSeconds(10)).until(() -> second.metrics().value("log_forwarder_spool_records") == 0);
        assertThat(second.counter("log_forwarder_spool_records_delivered_total"))
                .isEqualTo(600);
        assertThat(second.log()).contains("spool holds 500 records");
        second.stop();
    }
}
